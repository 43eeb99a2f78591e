package io.ckc.jobs.io;

import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.DeadLetter;
import org.apache.flink.api.connector.sink2.Sink;
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
 * (how long a sink's record may wait for others to share its produce request; {@link #DEFAULT_LINGER_MS}),
 * {@code --kafka-client-config FILE} (the job's own Kafka client security settings, as {@link KafkaClientConfig} reads
 * them; default: the file the process's {@code CKC_KAFKA_CLIENT_CONFIG} names, if any).
 */
public final class KafkaIo {

    private final String bootstrap;
    private final Topics topics;
    private final DeliveryGuarantee guarantee;
    private final int lingerMs;
    private final Properties security;

    /** The flag naming a job's own Kafka client security file: the jobs of one Flink process can be different principals. */
    public static final String CLIENT_CONFIG_FLAG = "kafka-client-config";

    /**
     * Kafka's own default since 4.0. A sink's linger is adaptive ({@link AtLeastOnceKafkaSink}): a record that finds
     * nothing in flight goes at once, so this is only how long a record behind others waits for more to share their
     * request. A B A B at saturation: last good level none and 2,500 msg/s with 1 ms, 2,500 and 4,500 adaptive at 5 ms;
     * at 200 and 1,000 msg/s no slower (perf/results/2026-12-05-0112-adaptive-linger).
     */
    public static final int DEFAULT_LINGER_MS = 5;

    public KafkaIo(String bootstrap, Topics topics, DeliveryGuarantee guarantee, int lingerMs, Properties security) {
        if (lingerMs < 0) {
            throw new IllegalArgumentException("--linger-ms must be 0 or more, not " + lingerMs);
        }
        this.bootstrap = bootstrap;
        this.topics = topics;
        this.guarantee = guarantee;
        this.lingerMs = lingerMs;
        this.security = security;
    }

    public static KafkaIo fromArgs(ParameterTool params) {
        return new KafkaIo(params.get("bootstrap", "127.0.0.1:9092"),
                new Topics(params.get("topic-prefix", Topics.DEFAULT.prefix()),
                        params.get("app-topic-prefix", Topics.DEFAULT.appPrefix())),
                DeliveryGuarantee.valueOf(params.get("sink-guarantee", "at-least-once").toUpperCase().replace('-', '_')),
                params.getInt("linger-ms", DEFAULT_LINGER_MS), security(params));
    }

    /** The job's Kafka client security settings: from {@code --kafka-client-config}, else the process's environment. */
    public static Properties security(ParameterTool params) {
        return security(params.get(CLIENT_CONFIG_FLAG));
    }

    /** The Kafka client security settings in {@code file} ({@code --kafka-client-config}), or the process's if null. */
    public static Properties security(String file) {
        return file == null ? KafkaClientConfig.security()
                : KafkaClientConfig.security(java.nio.file.Path.of(file), "--" + CLIENT_CONFIG_FLAG);
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
                .setProperties(security)
                .setProperty("client.id.prefix", groupId)
                .setProperty("fetch.max.wait.ms", String.valueOf(KafkaClientConfig.FETCH_MAX_WAIT_MS))
                .build();
    }

    /**
     * A sink writing each element as a CKC record ({@link RecordFormat}) to the topic and key the functions choose:
     * at least once through {@link AtLeastOnceKafkaSink} (the adaptive linger), exactly once through the connector's
     * transactional {@code KafkaSink}.
     */
    public <T> Sink<T> sink(String name, SerializableFunction<T, String> topicOf,
                            SerializableFunction<T, String> keyOf, SerializableFunction<T, Object> valueOf) {
        RecordMaker<T> records = new RecordMaker<>(topicOf, keyOf, valueOf);
        if (guarantee == DeliveryGuarantee.AT_LEAST_ONCE) {
            Properties producer = producerConfig();
            producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            return new AtLeastOnceKafkaSink<>(name, producer, records);
        }
        return KafkaSink.<T>builder()
                .setBootstrapServers(bootstrap)
                .setDeliveryGuarantee(guarantee)
                .setTransactionalIdPrefix("ckc-" + name)
                .setKafkaProducerConfig(producerConfig())
                .setRecordSerializer(new CkcRecordSerializer<>(records))
                .build();
    }

    /** What every sink's producer is given besides its servers and transactions: security, linger, idempotence. */
    Properties producerConfig() {
        Properties producer = new Properties();
        producer.putAll(security);
        producer.put(ProducerConfig.LINGER_MS_CONFIG, String.valueOf(lingerMs));
        producer.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        producer.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "600000");
        return producer;
    }

    public Sink<DeadLetter> deadLetterSink(String name) {
        String topic = topics.deadLetter();
        return sink(name + "-dead-letters", d -> topic, d -> null, d -> d);
    }

    /** An element as the Kafka record of a CKC sink: topic, key and value by the functions, the value a CKC record. */
    static final class RecordMaker<T> implements java.io.Serializable {
        private final SerializableFunction<T, String> topicOf;
        private final SerializableFunction<T, String> keyOf;
        private final SerializableFunction<T, Object> valueOf;
        private transient RecordFormat format;

        RecordMaker(SerializableFunction<T, String> topicOf, SerializableFunction<T, String> keyOf,
                    SerializableFunction<T, Object> valueOf) {
            this.topicOf = topicOf;
            this.keyOf = keyOf;
            this.valueOf = valueOf;
        }

        ProducerRecord<byte[], byte[]> record(T element, @Nullable Long timestamp) {
            if (format == null) {
                format = new RecordFormat();
            }
            String key = keyOf.apply(element);
            return new ProducerRecord<>(topicOf.apply(element), null, timestamp,
                    key == null ? null : key.getBytes(StandardCharsets.UTF_8), format.write(valueOf.apply(element)));
        }
    }

    /** The connector's view of a {@link RecordMaker}, for the exactly-once {@code KafkaSink}. */
    private static final class CkcRecordSerializer<T> implements KafkaRecordSerializationSchema<T> {
        private final RecordMaker<T> records;

        CkcRecordSerializer(RecordMaker<T> records) {
            this.records = records;
        }

        @Nullable
        @Override
        public ProducerRecord<byte[], byte[]> serialize(T element, KafkaSinkContext context, Long timestamp) {
            return records.record(element, timestamp);
        }
    }

    /** A function Flink can ship: every lambda given to {@link #sink} must be one. */
    public interface SerializableFunction<A, B> extends Function<A, B>, java.io.Serializable {
    }
}
