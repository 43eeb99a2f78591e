package io.ckc.gateway.core;

import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.records.Broadcast;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GatewayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Reads what the core sends this gateway and nothing meant for others: its own topic
 * ({@code ckc.gw.<id>}: deliveries, handovers, ping settings), resuming from the committed offsets,
 * the PoA manager's gateway list, starting from the latest, and broadcasts, starting from the end
 * (a broadcast is for the nodes connected when it is sent). Records that do not parse go to the
 * dead-letter topic.
 */
public final class CoreConsumer implements Runnable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CoreConsumer.class);

    private final KafkaConsumer<String, byte[]> consumer;
    private final String ownTopic;
    private final String listTopic;
    private final String broadcastTopic;
    private final GatewayCore core;
    private final UplinkAdmission admission;
    private final CorePublisher publisher;
    private final GatewayMetrics metrics;
    private final RecordFormat format = new RecordFormat();
    private final Thread thread;
    private volatile boolean running = true;
    private final int maxBacklog;

    public CoreConsumer(CoreOptions config, GatewayCore core, CorePublisher publisher, GatewayMetrics metrics) {
        this.ownTopic = config.topics().gateway(config.gatewayId());
        this.listTopic = config.topics().gatewayList();
        this.broadcastTopic = config.topics().broadcast();
        this.core = core;
        this.admission = core.uplinkAdmission();
        this.publisher = publisher;
        this.metrics = metrics;
        this.maxBacklog = config.downlinkBacklog();
        Properties props = KafkaClientConfig.client(config.kafkaBootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "ckc-gateway-" + config.gatewayId());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "ckc-gateway-" + config.gatewayId());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, KafkaClientConfig.FETCH_MAX_WAIT_MS);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        this.consumer = new KafkaConsumer<>(props);
        this.thread = new Thread(this, "ckc-core-consumer");
    }

    public void start() {
        // Assigned, not subscribed: the gateway owns its topic, and the list is read by every gateway.
        List<TopicPartition> own = partitionsOf(ownTopic);
        List<TopicPartition> list = partitionsOf(listTopic);
        List<TopicPartition> broadcasts = partitionsOf(broadcastTopic);
        List<TopicPartition> all = new ArrayList<>(own);
        all.addAll(list);
        all.addAll(broadcasts);
        consumer.assign(all);
        Map<TopicPartition, Long> ends = consumer.endOffsets(list);
        ends.forEach((partition, end) -> consumer.seek(partition, Math.max(0, end - 1))); // the latest list
        consumer.seekToEnd(broadcasts);
        broadcasts.forEach(consumer::position); // fix the start now: a broadcast sent after start() reaches us
        thread.start();
    }

    private List<TopicPartition> partitionsOf(String topic) {
        List<PartitionInfo> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        if (partitions == null || partitions.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist: run the topic setup first");
        }
        return partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    }

    @Override
    public void run() {
        try {
            while (running) {
                // Why: the loops take deliveries faster from here than their nodes acknowledge them when
                // the nodes or the machine are overloaded; what is not yet taken waits in Kafka, durable
                // and bounded by retention, instead of in this heap. The partitions are assigned, not
                // subscribed, so not polling for a while costs no rebalance.
                while (running && core.downlinkBacklog() > maxBacklog) {
                    metrics.downlinkWaits.inc();
                    Thread.sleep(5);
                }
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    handle(record);
                }
                long now = System.currentTimeMillis();
                admission.update(now);
                metrics.uplinkRefuseProbability.set(admission.refuseProbability());
                metrics.deliveryAge.set(admission.medianAgeMs() / 1000.0);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (WakeupException e) {
            if (running) {
                throw e;
            }
        } catch (RuntimeException e) {
            metrics.kafkaErrors.inc();
            LOG.error("Core consumer of {} stopped", ownTopic, e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void handle(ConsumerRecord<String, byte[]> record) {
        try {
            if (listTopic.equals(record.topic())) {
                core.gatewayList(format.read(record.value(), GatewayList.class));
            } else if (broadcastTopic.equals(record.topic())) {
                Broadcast broadcast = format.read(record.value(), Broadcast.class);
                if (broadcast.messageId() == null || broadcast.sender() == null || broadcast.payload() == null) {
                    throw new IOException("a broadcast needs messageId, sender and payload");
                }
                core.broadcast(broadcast);
            } else {
                admission.age(System.currentTimeMillis() - record.timestamp());
                core.command(format.read(record.value(), GatewayCommand.class));
            }
        } catch (IOException | RuntimeException e) {
            metrics.deadLetters.inc();
            publisher.deadLetter(new DeadLetter("gateway", record.topic(), record.partition(), record.offset(),
                    "unparseable record: " + e.getMessage(),
                    record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8), record.value(),
                    System.currentTimeMillis()));
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(10_000);
    }
}
