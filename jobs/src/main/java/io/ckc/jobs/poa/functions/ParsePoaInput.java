package io.ckc.jobs.poa.functions;

import io.ckc.jobs.io.RecordParser;
import io.ckc.jobs.poa.PoaInput;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.ConnectionReport;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;
import io.ckc.protocol.records.PoaControl;

import java.io.IOException;

/** Parses HelloPoA, LoadReport, ConnectionReport and PoaControl records by topic; anything else is a dead letter. */
public final class ParsePoaInput extends RecordParser<PoaInput> {

    private final Topics topics;

    public ParsePoaInput(Topics topics) {
        super("poa-manager");
        this.topics = topics;
    }

    @Override
    protected PoaInput parse(RecordFormat format, RawRecord record) throws IOException {
        PoaInput input;
        if (record.topic().equals(topics.gatewayHello())) {
            HelloPoA hello = read(format, record, HelloPoA.class);
            require(hello.gatewayId() != null && !hello.endpoints().isEmpty(),
                    "HelloPoA needs a gateway id and at least one endpoint");
            input = PoaInput.of(hello);
        } else if (record.topic().equals(topics.gatewayLoad())) {
            LoadReport load = read(format, record, LoadReport.class);
            require(load.periodMs() > 0 && load.connectedMns() >= 0, "LoadReport needs a positive period");
            input = PoaInput.of(load);
        } else if (record.topic().equals(topics.gatewayConnections())) {
            ConnectionReport report = read(format, record, ConnectionReport.class);
            require(report.parts() > 0 && report.part() >= 0 && report.part() < report.parts() && report.windowMs() > 0,
                    "ConnectionReport part must be in [0, parts) and the window positive");
            input = PoaInput.of(report);
        } else if (record.topic().equals(topics.poaControl())) {
            input = PoaInput.of(read(format, record, PoaControl.class));
        } else {
            throw new IOException("the PoA manager does not read topic " + record.topic());
        }
        require(Topics.isValidGatewayId(input.gatewayId()), "invalid gateway id '" + input.gatewayId() + "'");
        return input;
    }
}
