package io.ckc.perf;

import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.TopicSetup;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.IntegerDeserializer;
import org.apache.kafka.common.serialization.IntegerSerializer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The bare-Kafka echo every figure is compared with: the simulated nodes' messages go straight to a
 * topic ({@code perf.baseline.in}, keyed by node), a plain consumer answers each on
 * {@code perf.baseline.out}, and the simulator reads the answers back. No gateway, no Flink: what
 * is left is Kafka and this machine. Producers and consumers are tuned as the stack's are (no
 * linger, 50 ms fetch wait), and the same {@link Schedule} and {@link RoundTrips} measure it.
 */
final class BaselineEcho implements AutoCloseable {

    static final String IN = "perf.baseline.in";
    static final String OUT = "perf.baseline.out";

    final RoundTrips trips;
    private final KafkaProducer<Integer, byte[]> producer;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread responder;
    private final Thread reader;

    BaselineEcho(String bootstrap, int nodes) throws InterruptedException {
        try (Admin admin = TopicSetup.admin(bootstrap)) {
            TopicSetup.create(admin, List.of(new NewTopic(IN, 6, (short) 1).configs(Map.of("retention.ms", "3600000")),
                    new NewTopic(OUT, 6, (short) 1).configs(Map.of("retention.ms", "3600000"))));
        }
        trips = new RoundTrips(nodes);
        producer = new KafkaProducer<>(producerProps(bootstrap));
        CountDownLatch positioned = new CountDownLatch(2);
        responder = new Thread(() -> answer(bootstrap, positioned), "baseline-responder");
        reader = new Thread(() -> readAnswers(bootstrap, positioned), "baseline-reader");
        responder.start();
        reader.start();
        if (!positioned.await(60, TimeUnit.SECONDS)) {
            close();
            throw new IllegalStateException("cannot read the baseline topics on " + bootstrap);
        }
    }

    /** Sends the {@code seq}-th message of a node, as the node would to its gateway. */
    void send(int node, int seq) {
        producer.send(new ProducerRecord<>(IN, node, new EchoPayload(node, seq, System.nanoTime()).encode()));
    }

    /** The plain consumer of the baseline: each message goes back as it came. */
    private void answer(String bootstrap, CountDownLatch positioned) {
        try (KafkaConsumer<Integer, byte[]> consumer = new KafkaConsumer<>(consumerProps(bootstrap));
             KafkaProducer<Integer, byte[]> answers = new KafkaProducer<>(producerProps(bootstrap))) {
            fromTheEnd(consumer, IN);
            positioned.countDown();
            while (running.get()) {
                for (ConsumerRecord<Integer, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    answers.send(new ProducerRecord<>(OUT, record.key(), record.value()));
                }
            }
        }
    }

    private void readAnswers(String bootstrap, CountDownLatch positioned) {
        try (KafkaConsumer<Integer, byte[]> consumer = new KafkaConsumer<>(consumerProps(bootstrap))) {
            fromTheEnd(consumer, OUT);
            positioned.countDown();
            while (running.get()) {
                for (ConsumerRecord<Integer, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    EchoPayload echo = EchoPayload.decode(record.value());
                    trips.arrived(echo.node(), echo.seq(),
                            TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - echo.sentNanos()));
                }
            }
        }
    }

    private static void fromTheEnd(KafkaConsumer<Integer, byte[]> consumer, String topic) {
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
    }

    private static Properties producerProps(String bootstrap) {
        Properties props = KafkaClientConfig.client(bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, IntegerSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return props;
    }

    private static Properties consumerProps(String bootstrap) {
        Properties props = KafkaClientConfig.client(bootstrap);
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, KafkaClientConfig.FETCH_MAX_WAIT_MS);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, IntegerDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return props;
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        producer.close(Duration.ofSeconds(5));
        responder.join(5_000);
        reader.join(5_000);
    }
}
