package io.ckc.gateway.core;

import io.ckc.gateway.GatewayConfig;
import io.ckc.protocol.kafka.IdleFlusher;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.ReceiptBatch;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The records only a gateway holds (DELIVERED receipts, unsent deliveries) are sent again until Kafka takes them:
 * a broker restart must not lose them. The producer is a mock that fails or takes each send on the test's word.
 */
class KafkaCorePublisherTest {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @Test
    void aReceiptAndAnUnsentRecordKafkaRefusedAreSentAgainUntilTaken() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of(), List.of("gw-1"));
        MockProducer<String, byte[]> producer = new MockProducer<>(false, null, new StringSerializer(),
                new ByteArraySerializer());
        GatewayMetrics metrics = new GatewayMetrics("gw-1", new PrometheusRegistry());
        KafkaCorePublisher publisher = new KafkaCorePublisher(
                GatewayConfig.forTest("gw-1", KAFKA.bootstrapServers(), topics).core(), metrics, producer,
                IdleFlusher.disabled());
        try {
            Unicast unicast = new Unicast("m1", "app", "mn-1", new byte[] {1}, null, 0, false);
            CompletableFuture<Void> receipt = publisher.delivered(new ReceiptBatch("gw-1",
                    List.of(Receipt.of(unicast, Receipt.Outcome.DELIVERED, "gw-1", null, 0)))).toCompletableFuture();
            CompletableFuture<Void> unsent = publisher.unsent(new UnsentMessage(unicast, "gw-1", 1,
                    UnsentMessage.Reason.CONNECTION_BROKEN, 0)).toCompletableFuture();
            assertThat(producer.history()).hasSize(2);
            assertThat(producer.errorNext(new TimeoutException("the broker restarts"))).isTrue();
            assertThat(producer.errorNext(new TimeoutException("the broker restarts"))).isTrue();

            Await.until("both sent again", 10, () -> producer.history().size() == 4);
            assertThat(receipt).isNotDone();
            assertThat(producer.history().subList(2, 4)).extracting(r -> r.topic())
                    .containsExactlyInAnyOrder(topics.delivered(), topics.unsent());
            assertThat(producer.completeNext()).isTrue();
            assertThat(producer.completeNext()).isTrue();
            Await.until("both taken", 10, () -> receipt.isDone() && unsent.isDone());
            assertThat(receipt).isCompleted();
            assertThat(unsent).isCompleted();
            assertThat(metrics.kafkaErrors.get()).isEqualTo(2.0);
        } finally {
            publisher.close();
        }
    }
}
