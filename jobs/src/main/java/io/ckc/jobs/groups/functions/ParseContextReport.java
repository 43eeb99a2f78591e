package io.ckc.jobs.groups.functions;

import io.ckc.jobs.io.RecordParser;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.records.ContextReport;

import java.io.IOException;

/** Parses {@code ckc.context} records; one without a node id is a dead letter. */
public final class ParseContextReport extends RecordParser<ContextReport> {

    public ParseContextReport() {
        super("group-definer");
    }

    @Override
    protected ContextReport parse(RecordFormat format, RawRecord record) throws IOException {
        ContextReport report = read(format, record, ContextReport.class);
        require(report.mnId() != null && !report.mnId().isBlank(), "a context report needs the node's id");
        return report;
    }
}
