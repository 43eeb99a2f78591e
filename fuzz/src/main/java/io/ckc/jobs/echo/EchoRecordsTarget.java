package io.ckc.jobs.echo;

import io.ckc.fuzz.FuzzFinding;
import io.ckc.fuzz.ParserHarness;
import io.ckc.fuzz.SampleRecords;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;

import java.util.List;

/**
 * The echo job on any {@code app.echo} record ({@link ParserHarness} says how an input is one record): each comes
 * out of its parser once, and what it accepts names its node (the key) and can be answered.
 */
public final class EchoRecordsTarget {

    private static final ParserHarness<AppMessage> PARSER = new ParserHarness<>(new EchoJob.ParseAppMessage(),
            List.of(Topics.DEFAULT.app("echo")));

    private EchoRecordsTarget() {
    }

    /** Jazzer calls it once before fuzzing: the classes load and initialise here, not in the first input's time. */
    public static void fuzzerInitialize() {
        seeds().forEach(EchoRecordsTarget::fuzzerTestOneInput);
    }

    public static void fuzzerTestOneInput(byte[] data) {
        if (PARSER.parse(data) instanceof AppMessage message) {
            ParserHarness.requireKey(message.mnId(), message);
            try {
                EchoJob.replyTo(message);
            } catch (RuntimeException e) {
                throw new FuzzFinding("the echo cannot answer a message its parser accepted: " + message, e);
            }
        }
    }

    public static List<byte[]> seeds() {
        return List.of(ParserHarness.seed(0, SampleRecords.appMessage()));
    }
}
