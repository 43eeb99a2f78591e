package io.ckc.gateway.core;

import io.ckc.protocol.kafka.IdleFlusher;
import io.ckc.testing.Await;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The gateway producer's adaptive linger: a record alone goes at once, one behind others in flight lingers. */
class IdleFlusherTest {

    /** Completes nothing by itself; counts the flushes, each of which completes everything sent before it. */
    private static final class CountingProducer extends MockProducer<String, byte[]> {
        final AtomicInteger flushes = new AtomicInteger();

        CountingProducer() {
            super(false, null, new StringSerializer(), new ByteArraySerializer());
        }

        @Override
        public synchronized void flush() {
            flushes.incrementAndGet();
            super.flush();
        }
    }

    @Test
    void aRecordThatFindsNothingInFlightIsFlushedAndOneBehindOthersIsNot() throws Exception {
        CountingProducer producer = new CountingProducer();
        try (IdleFlusher flusher = new IdleFlusher(producer, "test-idle-flusher")) {
            Future<?> first = send(producer, flusher, "alone");
            assertThat(flusher.inFlight()).isLessThanOrEqualTo(1);
            Await.until("the lone record flushed", 10, () -> first.isDone() && flusher.inFlight() == 0);
            assertThat(producer.flushes).hasValue(1);

            // a record in flight (not completed): the next ones linger behind it, asking for no flush
            assertThat(flusher.sent()).isTrue();
            Await.until("its flush", 10, () -> producer.flushes.get() == 2);
            assertThat(flusher.sent()).isFalse();
            assertThat(flusher.sent()).isFalse();
            assertThat(flusher.inFlight()).isEqualTo(3);
            flusher.completed();
            flusher.completed();
            flusher.completed();

            // idle again: the next record asks for a flush, and goes
            Future<?> later = send(producer, flusher, "alone again");
            Await.until("the next lone record flushed", 10, () -> later.isDone() && flusher.inFlight() == 0);
            assertThat(producer.flushes).hasValue(3);
        }
    }

    @Test
    void aDisabledFlusherOnlyCounts() {
        try (IdleFlusher flusher = IdleFlusher.disabled()) {
            assertThat(flusher.sent()).isTrue();
            assertThat(flusher.sent()).isFalse();
            flusher.completed();
            flusher.completed();
            assertThat(flusher.inFlight()).isZero();
        }
    }

    private static Future<?> send(CountingProducer producer, IdleFlusher flusher, String value) {
        Future<?> sent = producer.send(new ProducerRecord<>("t", "k", value.getBytes()), (metadata, error) -> flusher.completed());
        assertThat(flusher.sent()).isTrue();
        return sent;
    }
}
