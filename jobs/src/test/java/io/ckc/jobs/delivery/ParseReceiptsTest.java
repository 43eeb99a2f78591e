package io.ckc.jobs.delivery;

import io.ckc.jobs.delivery.functions.ParseDeliveryInput;
import io.ckc.jobs.io.RecordParser;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.kafka.Json;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.ReceiptBatch;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;

import static org.assertj.core.api.Assertions.assertThat;

/** The delivery job's parser splits a gateway's batch of receipts on ckc.delivered into one input per receipt. */
class ParseReceiptsTest {

    private static final Receipt FIRST = new Receipt("m1", "app", "node-1", Receipt.Outcome.DELIVERED, "gw-1", null, 1);
    private static final Receipt SECOND = new Receipt("m2", "echo", "node-2", Receipt.Outcome.DELIVERED, "gw-1", null, 2);
    private static final Receipt UNDELIVERABLE = new Receipt("m3", "app", "node-3", Receipt.Outcome.DROPPED, "gw-1",
            "larger than the device takes", 3);

    private final RecordFormat format = new RecordFormat();

    /** The parser's outputs and dead letters for one ckc.delivered record. */
    private record Parsed(List<DeliveryInput> inputs, List<DeadLetter> deadLetters) {
    }

    private static Parsed parse(byte[] value) throws Exception {
        try (OneInputStreamOperatorTestHarness<RawRecord, DeliveryInput> harness =
                     new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(new ParseDeliveryInput(Topics.DEFAULT)))) {
            harness.open();
            harness.processElement(new RawRecord(Topics.DEFAULT.delivered(), 0, 0,
                    "gw-1".getBytes(StandardCharsets.UTF_8), value), 0);
            List<DeliveryInput> inputs = new ArrayList<>();
            for (Object out : harness.getOutput()) {
                if (out instanceof StreamRecord<?> record) {
                    inputs.add((DeliveryInput) record.getValue());
                }
            }
            Queue<StreamRecord<DeadLetter>> dead = harness.getSideOutput(RecordParser.DEAD_LETTERS);
            return new Parsed(inputs, dead == null ? List.of() : dead.stream().map(StreamRecord::getValue).toList());
        }
    }

    @Test
    void aBatchBecomesOneInputPerReceiptInItsOrderEachKeyedByItsNode() throws Exception {
        Parsed parsed = parse(format.write(new ReceiptBatch("gw-1", List.of(FIRST, SECOND, UNDELIVERABLE))));

        assertThat(parsed.deadLetters()).isEmpty();
        assertThat(parsed.inputs()).extracting(DeliveryInput::delivered).containsExactly(FIRST, SECOND, UNDELIVERABLE);
        assertThat(parsed.inputs()).extracting(DeliveryInput::mnId).containsExactly("node-1", "node-2", "node-3");
    }

    @Test
    void aSingleReceiptAsGatewaysWroteBeforeIsReadBinaryOrJson() throws Exception {
        assertThat(parse(format.write(FIRST)).inputs()).extracting(DeliveryInput::delivered).containsExactly(FIRST);
        assertThat(parse(Json.write(Json.newMapper(), FIRST)).inputs()).extracting(DeliveryInput::delivered)
                .containsExactly(FIRST);
        assertThat(parse(Json.write(Json.newMapper(), new ReceiptBatch("gw-1", List.of(FIRST, SECOND)))).inputs())
                .extracting(DeliveryInput::delivered).containsExactly(FIRST, SECOND);
    }

    @Test
    void aBatchWithAReceiptTheJobCannotUseIsOneDeadLetterAndNoInput() throws Exception {
        Receipt expired = new Receipt("m4", "app", "node-4", Receipt.Outcome.EXPIRED, "gw-1", null, 4);
        Receipt anonymous = new Receipt("m5", "app", null, Receipt.Outcome.DELIVERED, "gw-1", null, 5);

        for (Receipt bad : List.of(expired, anonymous)) {
            Parsed parsed = parse(format.write(new ReceiptBatch("gw-1", List.of(FIRST, bad))));
            assertThat(parsed.inputs()).as("%s", bad).isEmpty();
            assertThat(parsed.deadLetters()).as("%s", bad).singleElement()
                    .satisfies(d -> assertThat(d.reason()).contains("acknowledgement needs"));
        }
    }
}
