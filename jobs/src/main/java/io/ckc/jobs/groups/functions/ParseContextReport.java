package io.ckc.jobs.groups.functions;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ckc.jobs.io.JsonParser;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.records.ContextReport;

import java.io.IOException;

/** Parses {@code ckc.context} records; one without a node id is a dead letter. */
public final class ParseContextReport extends JsonParser<ContextReport> {

    public ParseContextReport() {
        super("group-definer");
    }

    @Override
    protected ContextReport parse(ObjectMapper mapper, RawRecord record) throws IOException {
        ContextReport report = read(mapper, record, ContextReport.class);
        require(report.mnId() != null && !report.mnId().isBlank(), "a context report needs the node's id");
        return report;
    }
}
