package io.ckc.jobs.io;

import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.DeadLetter;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.util.ParameterTool;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

import javax.annotation.Nullable;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;

/**
 * Kafka sources and sinks shared by every CKC job, configured from the common flags:
 * {@code --bootstrap} (default 127.0.0.1:9092), {@code --topic-prefix} (ckc.), {@code --app-topic-prefix}
 * (app.), {@code --sink-guarantee} (at-least-once | exactly-once; at-least-once by default because
 * mobile nodes drop duplicates by message id and it keeps latency free of checkpoint waits), {@code --linger-ms}
 * (how long a sink's record may wait for others to share its produce request; {@link #DEFAULT_LINGER_MS}).
 */
public final class KafkaIo {

    private final String bootstrap;
    private final Topics topics;
    private final DeliveryGuarantee guarantee;
    private final int lingerMs;

    /**
     * Why 1 ms and not 0: at 0 each record was close to a produce request of its own. A B A B at 2,000 msg/s
     * (perf/results/2026-11-28-0751-ab): CPU per round trip Flink 270 -> 237 us, gateway 180 -> 156, Kafka 312 -> 249
     * (fewer, fuller fetches downstream too), for a round trip's p50 4.7 -> 5.4 ms. At a few hundred messages a second
     * the wait is all cost: with this and the gateway's linger at 0 the round trip at 200 msg/s fell from 5.9 to 3.2 ms
     * (perf/results/2026-11-29-0832-ab), while at 1,000 msg/s the two rounds disagreed; hence a flag.
     */
    public static final int DEFAULT_LINGER_MS = 1;

    public KafkaIo(String bootstrap, Topics topics, DeliveryGuarantee guarantee, int lingerMs) {
        if (lingerMs < 0) {
            throw new IllegalArgumentException("--linger-ms must be 0 or more, not " + lingerMs);
        }
        this.bootstrap = bootstrap;
        this.topics = topics;
        this.guarantee = guarantee;
        this.lingerMs = lingerMs;
    }

    public static KafkaIo fromArgs(ParameterTool params) {
        return new KafkaIo(params.get("bootstrap", "127.0.0.1:9092"),
                new Topics(params.get("topic-prefix", Topics.DEFAULT.prefix()),
                        params.get("app-topic-prefix", Topics.DEFAULT.appPrefix())),
                DeliveryGuarantee.valueOf(params.get("sink-guarantee", "at-least-once").toUpperCase().replace('-', '_')),
                params.getInt("linger-ms", DEFAULT_LINGER_MS));
    }

    public Topics topics() {
        return topics;
    }

    /** A source of raw records from the given topics, resuming from the group's committed offsets. */
    public KafkaSource<RawRecord> source(String groupId, List<String> topicNames) {
        return KafkaSource.<RawRecord>builder()
                .setBootstrapServers(bootstrap)
                .setTopics(topicNames)
                .setGroupId(groupId)
                .setStartingOffsets(OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
                .setDeserializer(new RawRecordDeserializer())
                .setProperties(KafkaClientConfig.security())
                .setProperty("client.id.prefix", groupId)
                .setProperty("fetch.max.wait.ms", String.valueOf(KafkaClientConfig.FETCH_MAX_WAIT_MS))
                .build();
    }

    /** A sink writing each element as a CKC record ({@link RecordFormat}) to the topic and key the functions choose. */
    public <T> KafkaSink<T> sink(String name, SerializableFunction<T, String> topicOf,
                                 SerializableFunction<T, String> keyOf, SerializableFunction<T, Object> valueOf) {
        return KafkaSink.<T>builder()
                .setBootstrapServers(bootstrap)
                .setDeliveryGuarantee(guarantee)
                .setTransactionalIdPrefix("ckc-" + name)
                .setKafkaProducerConfig(producerConfig())
                .setRecordSerializer(new CkcRecordSerializer<>(topicOf, keyOf, valueOf))
                .build();
    }

    /** What every sink's producer is given besides its servers and transactions: security, linger, idempotence. */
    Properties producerConfig() {
        Properties producer = KafkaClientConfig.security();
        producer.put(ProducerConfig.LINGER_MS_CONFIG, String.valueOf(lingerMs));
        producer.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        producer.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "600000");
        return producer;
    }

    public KafkaSink<DeadLetter> deadLetterSink(String name) {
        String topic = topics.deadLetter();
        return sink(name + "-dead-letters", d -> topic, d -> null, d -> d);
    }

    /** Serialises with {@link RecordFormat}, made in {@code open()}. */
    private static final class CkcRecordSerializer<T> implements KafkaRecordSerializationSchema<T> {
        private final SerializableFunction<T, String> topicOf;
        private final SerializableFunction<T, String> keyOf;
        private final SerializableFunction<T, Object> valueOf;
        private transient RecordFormat format;

        CkcRecordSerializer(SerializableFunction<T, String> topicOf, SerializableFunction<T, String> keyOf,
                             SerializableFunction<T, Object> valueOf) {
            this.topicOf = topicOf;
            this.keyOf = keyOf;
            this.valueOf = valueOf;
        }

        @Override
        public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
            format = new RecordFormat();
        }

        @Nullable
        @Override
        public ProducerRecord<byte[], byte[]> serialize(T element, KafkaSinkContext context, Long timestamp) {
            String key = keyOf.apply(element);
            return new ProducerRecord<>(topicOf.apply(element), null, timestamp,
                    key == null ? null : key.getBytes(StandardCharsets.UTF_8), format.write(valueOf.apply(element)));
        }
    }

    /** A function Flink can ship: every lambda given to {@link #sink} must be one. */
    public interface SerializableFunction<A, B> extends Function<A, B>, java.io.Serializable {
    }
}
