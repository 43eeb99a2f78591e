package io.ckc.testing;

import io.ckc.protocol.kafka.TopicSetup;
import io.ckc.protocol.kafka.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real single-node KRaft Kafka broker inside the test JVM (no Docker), one per test class:
 * {@code @RegisterExtension static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();}.
 * Each test takes fresh topic names with {@link #freshTopics()}.
 */
public final class EmbeddedKafkaExtension implements BeforeAllCallback, AfterAllCallback {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private KafkaClusterTestKit cluster;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                .build())
                .setConfigProp("auto.create.topics.enable", "false")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("offsets.topic.num.partitions", "3")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("transaction.state.log.num.partitions", "3")
                .build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * Stops the broker and starts it again, as an operator's restart would; its data and its address
     * stay, so clients reconnect on their own. Returns once it serves again.
     */
    public void restartBroker() throws Exception {
        stopBroker();
        startBroker();
    }

    /** Stops the broker (its controller stays): clients see it gone until {@link #startBroker()}. */
    public void stopBroker() {
        kafka.server.BrokerServer broker = cluster.brokers().values().iterator().next();
        broker.shutdown();
        broker.awaitShutdown();
    }

    /** Starts the broker {@link #stopBroker()} stopped, with its data and address; returns once it serves. */
    public void startBroker() throws Exception {
        cluster.brokers().values().iterator().next().startup();
        cluster.waitForReadyBrokers();
    }

    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** Topic names no other test in this JVM uses. */
    public Topics freshTopics() {
        int n = NAMESPACES.incrementAndGet();
        return new Topics("t" + n + ".ckc.", "t" + n + ".app.");
    }

    /** Creates the core topics for these names, the given channels and the given gateways' topics. */
    public void createTopics(Topics topics, List<String> channels, List<String> gateways) throws InterruptedException {
        TopicSetup setup = new TopicSetup(topics, 3);
        List<NewTopic> wanted = new ArrayList<>(setup.coreTopics(channels));
        gateways.forEach(gw -> wanted.add(setup.gatewayTopic(gw)));
        try (Admin admin = TopicSetup.admin(bootstrapServers())) {
            TopicSetup.create(admin, wanted);
        }
    }

    public KafkaProducer<String, byte[]> producer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return new KafkaProducer<>(props);
    }

    /** Reads a topic from the beginning until {@code count} records arrived or the timeout passed. */
    public List<ConsumerRecord<String, byte[]>> read(String topic, int count, Duration timeout) {
        Properties props = fromTheBeginning("test-reader-");
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    /**
     * Follows a topic from the beginning on a background thread, handing every record to
     * {@code handler}, until the returned handle is closed.
     */
    public AutoCloseable follow(String topic, java.util.function.Consumer<ConsumerRecord<String, byte[]>> handler) {
        Properties props = fromTheBeginning("test-follower-");
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread thread = new Thread(() -> {
            try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
                consumer.subscribe(List.of(topic));
                while (running.get()) {
                    consumer.poll(Duration.ofMillis(100)).forEach(handler);
                }
            }
        }, "follow-" + topic);
        thread.setDaemon(true);
        thread.start();
        return () -> {
            running.set(false);
            thread.join(5_000);
        };
    }

    /** Like {@link #read}, parsing each record's CKC JSON as {@code type}. */
    public <T> List<T> readJson(String topic, int count, Duration timeout, Class<T> type) {
        io.ckc.protocol.kafka.RecordFormat format = new io.ckc.protocol.kafka.RecordFormat();
        return read(topic, count, timeout).stream().map(record -> parse(format, record, type)).toList();
    }

    /**
     * The receipts gateways wrote on a {@code ckc.delivered} topic, their batches split, once there are {@code count}
     * of them (the gateway writes those of one pass of its loop as one record, so how many records is not known).
     */
    public List<io.ckc.protocol.records.Receipt> readReceipts(String topic, int count, Duration timeout) throws Exception {
        List<io.ckc.protocol.records.Receipt> receipts = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (AutoCloseable following = followJson(topic, io.ckc.protocol.records.ReceiptBatch.class,
                batch -> receipts.addAll(batch.receipts()))) {
            Await.until(count + " receipts on " + topic, (int) timeout.toSeconds(), () -> receipts.size() >= count);
        }
        return List.copyOf(receipts);
    }

    /** Follows a topic of CKC records, parsed as {@code type}; an unreadable record fails loudly. */
    public <T> AutoCloseable followJson(String topic, Class<T> type, java.util.function.Consumer<T> handler) {
        io.ckc.protocol.kafka.RecordFormat format = new io.ckc.protocol.kafka.RecordFormat();
        return follow(topic, record -> handler.accept(parse(format, record, type)));
    }

    private static <T> T parse(io.ckc.protocol.kafka.RecordFormat format, ConsumerRecord<String, byte[]> record,
                               Class<T> type) {
        try {
            return format.read(record.value(), type);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("unreadable record on " + record.topic(), e);
        }
    }

    /** A consumer of its own new group, starting at the earliest offsets. */
    private Properties fromTheBeginning(String groupPrefix) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupPrefix + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return props;
    }
}
