package io.ckc.fuzz;

import io.ckc.jobs.poa.PoaInput;
import io.ckc.jobs.poa.functions.ParsePoaInput;
import io.ckc.protocol.kafka.Topics;

import java.util.List;

/**
 * The PoA manager's parser on any record of the four topics it reads ({@link ParserHarness} says how an input is
 * one record): each comes out once, and what it accepts names its gateway, the key the job is keyed by.
 */
public final class PoaRecordsTarget {

    private static final Topics TOPICS = Topics.DEFAULT;
    private static final List<String> READS = List.of(TOPICS.gatewayHello(), TOPICS.gatewayLoad(),
            TOPICS.gatewayConnections(), TOPICS.poaControl());
    private static final ParserHarness<PoaInput> PARSER = new ParserHarness<>(new ParsePoaInput(TOPICS), READS);

    private PoaRecordsTarget() {
    }

    /** Jazzer calls it once before fuzzing: the classes load and initialise here, not in the first input's time. */
    public static void fuzzerInitialize() {
        seeds().forEach(PoaRecordsTarget::fuzzerTestOneInput);
    }

    public static void fuzzerTestOneInput(byte[] data) {
        if (PARSER.parse(data) instanceof PoaInput input) {
            ParserHarness.requireKey(input.gatewayId(), input);
        }
    }

    public static List<byte[]> seeds() {
        return List.of(
                ParserHarness.seed(0, SampleRecords.hello()),
                ParserHarness.seed(1, SampleRecords.load()),
                ParserHarness.seed(2, SampleRecords.connections()),
                ParserHarness.seed(3, SampleRecords.drain()));
    }
}
