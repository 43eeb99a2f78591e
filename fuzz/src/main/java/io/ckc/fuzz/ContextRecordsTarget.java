package io.ckc.fuzz;

import io.ckc.jobs.groups.functions.ParseContextReport;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.ContextReport;

import java.util.List;

/**
 * The group definers' parser on any {@code ckc.context} record ({@link ParserHarness} says how an input is one
 * record): each comes out once, and what it accepts names its node, the key the definers are keyed by.
 */
public final class ContextRecordsTarget {

    private static final ParserHarness<ContextReport> PARSER = new ParserHarness<>(new ParseContextReport(),
            List.of(Topics.DEFAULT.context()));

    private ContextRecordsTarget() {
    }

    /** Jazzer calls it once before fuzzing: the classes load and initialise here, not in the first input's time. */
    public static void fuzzerInitialize() {
        seeds().forEach(ContextRecordsTarget::fuzzerTestOneInput);
    }

    public static void fuzzerTestOneInput(byte[] data) {
        if (PARSER.parse(data) instanceof ContextReport report) {
            ParserHarness.requireKey(report.mnId(), report);
        }
    }

    public static List<byte[]> seeds() {
        return List.of(ParserHarness.seed(0, SampleRecords.contextReport()));
    }
}
