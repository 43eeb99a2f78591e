package io.ckc.fuzz;

import io.ckc.jobs.delivery.DeliveryInput;
import io.ckc.jobs.delivery.functions.ParseDeliveryInput;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.protocol.records.Groupcast;

import java.util.List;
import java.util.Set;

/**
 * The delivery job's parser on any record of the six topics it reads ({@link ParserHarness} says how an input is
 * one record): each comes out once (a gateway's batch of receipts as each of them), and what it accepts has the key
 * the job is keyed by.
 */
public final class DeliveryRecordsTarget {

    private static final Topics TOPICS = Topics.DEFAULT;
    private static final List<String> READS = List.of(TOPICS.toMn(), TOPICS.mnEvents(), TOPICS.unsent(),
            TOPICS.delivered(), TOPICS.groups(), TOPICS.groupcast());
    private static final ParserHarness<DeliveryInput> PARSER = new ParserHarness<>(
            new ParseDeliveryInput(TOPICS), READS, ParseDeliveryInput.ADVERTISEMENTS, ParseDeliveryInput.GROUPCASTS);

    private DeliveryRecordsTarget() {
    }

    /** Jazzer calls it once before fuzzing: the classes load and initialise here, not in the first input's time. */
    public static void fuzzerInitialize() {
        seeds().forEach(DeliveryRecordsTarget::fuzzerTestOneInput);
    }

    public static void fuzzerTestOneInput(byte[] data) {
        for (Object out : PARSER.parse(data, Set.of(TOPICS.delivered()))) {
            if (out instanceof DeliveryInput input) {
                ParserHarness.requireKey(input.mnId(), input);
            } else if (out instanceof GroupAdvertisement advertisement) {
                ParserHarness.requireKey(advertisement.key(), advertisement);
            } else if (out instanceof Groupcast groupcast) {
                ParserHarness.requireKey(groupcast.group(), groupcast);
            }
        }
    }

    public static List<byte[]> seeds() {
        return List.of(
                ParserHarness.seed(0, SampleRecords.unicast()),
                ParserHarness.seed(1, SampleRecords.connected()),
                ParserHarness.seed(2, SampleRecords.unsent()),
                ParserHarness.seed(3, SampleRecords.delivered()),
                ParserHarness.seed(4, SampleRecords.advertisement()),
                ParserHarness.tombstone(4, SampleRecords.advertisement().key()),
                ParserHarness.seed(5, SampleRecords.groupcast()));
    }
}
