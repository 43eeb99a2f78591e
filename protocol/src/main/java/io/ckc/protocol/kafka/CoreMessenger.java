package io.ckc.protocol.kafka;

import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Broadcast;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.Unicast;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * What a core application uses to reach mobile nodes: unicast ({@code ckc.to-mn}), groupcast
 * ({@code ckc.groupcast}) and broadcast ({@code ckc.broadcast}) over one idempotent Kafka producer,
 * writing CKC's record types. Thread-safe; close it when done.
 *
 * <pre>{@code
 * try (CoreMessenger core = CoreMessenger.connect("127.0.0.1:9092", Topics.DEFAULT, "my-app")) {
 *     core.unicast(mnId, payload);
 *     core.groupcast("grid-0.01/cell-2290_-4320", payload, Duration.ofMinutes(5));
 *     core.broadcast(payload);
 * }
 * }</pre>
 */
public final class CoreMessenger implements AutoCloseable {

    private final KafkaProducer<String, byte[]> producer;
    private final Topics topics;
    private final String sender;
    private final RecordFormat format = new RecordFormat();

    public CoreMessenger(KafkaProducer<String, byte[]> producer, Topics topics, String sender) {
        this.producer = producer;
        this.topics = topics;
        this.sender = sender;
    }

    /** A messenger with its own producer: idempotent, acks from all replicas, no linger. */
    public static CoreMessenger connect(String bootstrap, Topics topics, String sender) {
        return new CoreMessenger(new KafkaProducer<>(producerProperties(bootstrap)), topics, sender);
    }

    public static Properties producerProperties(String bootstrap) {
        Properties props = KafkaClientConfig.client(bootstrap);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return props;
    }

    public String sender() {
        return sender;
    }

    /** Sends to one mobile node with the default TTL; returns the message id. */
    public String unicast(String mnId, byte[] payload) {
        Unicast unicast = new Unicast(newId(), sender, mnId, payload, null, System.currentTimeMillis(), false);
        send(unicast);
        return unicast.messageId();
    }

    /**
     * Answers a node's message: to its node, on the reply topic and with the correlation data it gave; the answer's
     * id is derived from the request's, so a request read twice draws one answer at the node. Returns the answer's id.
     */
    public String reply(AppMessage request, byte[] payload) {
        Unicast answer = request.answer(sender, payload);
        send(answer);
        return answer.messageId();
    }

    /** Sends a unicast built by the caller (own id, TTL, receipt). Completes when Kafka has it. */
    public CompletableFuture<Void> send(Unicast unicast) {
        return write(topics.toMn(), unicast.recipient(), unicast);
    }

    /** Sends to every current member of {@code group} ({@code <definerId>/<name>}); returns the message id. */
    public String groupcast(String group, byte[] payload, Duration ttl) {
        Groupcast groupcast = new Groupcast(newId(), sender, group, payload, ttl == null ? null : ttl.toMillis(),
                System.currentTimeMillis(), false);
        send(groupcast);
        return groupcast.messageId();
    }

    public CompletableFuture<Void> send(Groupcast groupcast) {
        if (!Topics.isValidGroup(groupcast.group())) {
            throw new IllegalArgumentException("group '" + groupcast.group() + "' is not <definerId>/<name>");
        }
        return write(topics.groupcast(), groupcast.group(), groupcast);
    }

    /** Sends to every mobile node connected now, on every gateway; returns the message id. */
    public String broadcast(byte[] payload) {
        Broadcast broadcast = new Broadcast(newId(), sender, payload, null, System.currentTimeMillis());
        send(broadcast);
        return broadcast.messageId();
    }

    public CompletableFuture<Void> send(Broadcast broadcast) {
        return write(topics.broadcast(), broadcast.messageId(), broadcast);
    }

    public void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close();
    }

    private CompletableFuture<Void> write(String topic, String key, Object record) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        producer.send(new ProducerRecord<>(topic, key, format.write(record)), (metadata, error) -> {
            if (error == null) {
                written.complete(null);
            } else {
                written.completeExceptionally(error);
            }
        });
        return written;
    }

    private static String newId() {
        return UUID.randomUUID().toString();
    }
}
