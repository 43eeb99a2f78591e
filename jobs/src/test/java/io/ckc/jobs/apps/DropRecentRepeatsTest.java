package io.ckc.jobs.apps;

import io.ckc.jobs.echo.EchoJob;
import io.ckc.protocol.records.AppMessage;
import org.apache.flink.streaming.api.operators.StreamFilter;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class DropRecentRepeatsTest {

    private static AppMessage message(String mn, String id) {
        return new AppMessage(id, mn, "gw-1", "echo", id.getBytes(), null, 0);
    }

    private static OneInputStreamOperatorTestHarness<AppMessage, AppMessage> harness(DropRecentRepeats filter)
            throws Exception {
        var harness = new OneInputStreamOperatorTestHarness<>(new StreamFilter<>(filter));
        harness.open();
        return harness;
    }

    @Test
    void eachNodesMessageIdPassesOnceWhileRememberedThenAgainAfterTheWindow() throws Exception {
        AtomicLong now = new AtomicLong(1_000);
        try (var harness = harness(new DropRecentRepeats(Duration.ofSeconds(60), 100, now::get))) {
            for (AppMessage m : new AppMessage[] {message("n1", "a"), message("n1", "a"), message("n2", "a"),
                    message("n1", "b"), message("n1", "a")}) {
                harness.processElement(new StreamRecord<>(m));
            }
            assertThat(harness.extractOutputValues()).extracting(m -> m.mnId() + ":" + m.messageId())
                    .containsExactly("n1:a", "n2:a", "n1:b");

            now.addAndGet(60_001); // forgotten: the same id passes again
            harness.processElement(new StreamRecord<>(message("n1", "a")));
            assertThat(harness.extractOutputValues()).hasSize(4);
        }
    }

    @Test
    void pastItsSizeBoundTheEldestIdIsForgottenFirst() throws Exception {
        AtomicLong now = new AtomicLong(1_000);
        try (var harness = harness(new DropRecentRepeats(Duration.ofMinutes(2), 2, now::get))) {
            for (String id : new String[] {"a", "b", "c", "c", "b", "a"}) {
                harness.processElement(new StreamRecord<>(message("n1", id)));
            }
            // c and b were the two newest when they came again; a had been pushed out by c
            assertThat(harness.extractOutputValues()).extracting(AppMessage::messageId)
                    .containsExactly("a", "b", "c", "a");
        }
    }

    @Test
    void aRepeatIsDroppedAcrossTheTurnOfAGeneration() throws Exception {
        AtomicLong now = new AtomicLong(1_000);
        try (var harness = harness(new DropRecentRepeats(Duration.ofSeconds(60), 100, now::get))) {
            harness.processElement(new StreamRecord<>(message("n1", "a")));
            now.set(31_000); // the first generation is 30 s old: b starts the next one
            harness.processElement(new StreamRecord<>(message("n1", "b")));
            harness.processElement(new StreamRecord<>(message("n1", "a")));
            now.set(61_000); // b's generation is over: a's is forgotten, b's still known
            harness.processElement(new StreamRecord<>(message("n1", "c")));
            harness.processElement(new StreamRecord<>(message("n1", "b")));
            harness.processElement(new StreamRecord<>(message("n1", "a")));
            assertThat(harness.extractOutputValues()).extracting(AppMessage::messageId)
                    .containsExactly("a", "b", "c", "a");
        }
    }

    @Test
    void aFullGenerationKnowsEachOfItsIdsAndNoOther() {
        var ids = new DropRecentRepeats.RecentIds(100_000, 60_000);
        for (long i = 1; i <= 100_000; i++) {
            assertThat(ids.add(i * 0x9E3779B97F4A7C15L, i, 0)).isTrue();
        }
        for (long i = 1; i <= 100_000; i++) {
            assertThat(ids.add(i * 0x9E3779B97F4A7C15L, i, 0)).as("id %d again", i).isFalse();
        }
        assertThat(ids.add(0, 0, 0)).as("a new id, whose hash is the empty mark").isTrue();
        assertThat(ids.add(0, 0, 0)).isFalse();
    }

    @Test
    void theEchosFilterShipsToATaskManager() throws Exception {
        byte[] shipped = InstantiationUtil.serializeObject(EchoJob.dropRecentRepeats());
        assertThat(InstantiationUtil.<DropRecentRepeats>deserializeObject(shipped, getClass().getClassLoader()))
                .isInstanceOf(DropRecentRepeats.class);
    }
}
