package io.ckc.jobs.apps;

import io.ckc.protocol.records.AppMessage;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class DropRepeatedMessagesTest {

    private static AppMessage message(String mn, String id) {
        return new AppMessage(id, mn, "gw-1", "echo", id.getBytes(), null, 0);
    }

    @Test
    void eachNodesMessageIdPassesOnceWhileItIsRememberedAndStateExpires() throws Exception {
        try (var harness = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new DropRepeatedMessages(Duration.ofSeconds(60))), AppMessage::mnId,
                Types.STRING)) {
            harness.open();
            harness.setStateTtlProcessingTime(0);
            for (AppMessage m : new AppMessage[] {message("n1", "a"), message("n1", "a"), message("n2", "a"),
                    message("n1", "b"), message("n1", "a")}) {
                harness.processElement(new StreamRecord<>(m));
            }
            assertThat(harness.extractOutputValues()).extracting(m -> m.mnId() + ":" + m.messageId())
                    .containsExactly("n1:a", "n2:a", "n1:b");

            harness.setStateTtlProcessingTime(60_001); // forgotten: the same id passes again
            harness.processElement(new StreamRecord<>(message("n1", "a")));
            assertThat(harness.extractOutputValues()).hasSize(4);
        }
    }
}
