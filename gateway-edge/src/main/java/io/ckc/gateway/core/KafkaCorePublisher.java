package io.ckc.gateway.core;

import dev.failsafe.Failsafe;
import dev.failsafe.RetryPolicy;
import io.ckc.protocol.kafka.IdleFlusher;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.TopicSetup;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.ConnectionReport;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.ReceiptBatch;
import io.ckc.protocol.records.UnsentMessage;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Publishes gateway records to Kafka through the idempotent producer, tuned for latency, of the gateway's host
 * (see {@link #newProducer}; the host closes it), and keeps a directory of existing {@code app.*} topics so an MN
 * can never make the producer block on (or the broker auto-create) an unknown topic.
 */
public final class KafkaCorePublisher implements CorePublisher {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaCorePublisher.class);
    private static final long TOPIC_REFRESH_MS = 10_000;
    private static final long METADATA_WARM_UP_MS = 10_000;
    /** How long a record the gateway alone holds is sent again: past it, what it says is stale (TTLs, routes). */
    static final Duration RETRY_FOR = Duration.ofMinutes(5);
    private static final RetryPolicy<Void> RETRY_UNTIL_TAKEN = RetryPolicy.<Void>builder()
            .withDelay(Duration.ofSeconds(1)).withMaxRetries(-1).withMaxDuration(RETRY_FOR).build();

    private final Topics topics;
    private final GatewayMetrics metrics;
    private final Producer<String, byte[]> producer;
    private final IdleFlusher flusher;
    private final Admin admin;
    private final RecordFormat format = new RecordFormat();
    private final ScheduledExecutorService refresher;
    private final ScheduledExecutorService retries;
    private final AtomicBoolean refreshPending = new AtomicBoolean();
    private final RepeatedWarning writeFailed = new RepeatedWarning(LOG, 10, TimeUnit.SECONDS);
    private volatile Set<String> knownTopics = Set.of();

    /**
     * A publisher writing through its host's producer, which it leaves open on close, and telling the producer's
     * flusher of every record (so a record that finds the producer idle goes without lingering).
     */
    public KafkaCorePublisher(CoreOptions config, GatewayMetrics metrics, Producer<String, byte[]> producer,
                              IdleFlusher flusher) {
        this.topics = config.topics();
        this.metrics = metrics;
        this.producer = producer;
        this.flusher = flusher;
        this.admin = TopicSetup.admin(config.kafkaBootstrap());
        this.refresher = daemonScheduler("ckc-topic-directory");
        this.retries = daemonScheduler("ckc-core-record-retries");
        refreshTopics();
        awaitMetadata(METADATA_WARM_UP_MS);
        refresher.scheduleWithFixedDelay(this::refreshTopics, TOPIC_REFRESH_MS, TOPIC_REFRESH_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * The gateway producer's settings: idempotent, every replica's ack, the configured linger, and a send that never
     * blocks. Why {@code max.block.ms} 0: {@code send} runs on the gateway's event loops, and when the broker goes away
     * the client falls back to its bootstrap metadata, after which each send waited the whole block time for a topic's
     * partitions: with 5 s, two sends held an event loop for 10 s, its nodes' probes went unanswered, and a broker
     * restart became a reconnect storm of every node. Now a send without metadata fails at once, the node is told
     * PUBLISH_FAILED and sends again a second later, and the producer fetches the metadata in the background; the
     * publisher fetches it for the topics it writes before the gateway opens ({@link #awaitMetadata}).
     * The delivery timeout stays Kafka's 120 s: a shorter one (15 s was tried) expires the batches held across a
     * broker restart of 20 s while later batches of the same partition go through, so the node's messages reach
     * Kafka out of order (1,144 echoes reordered in a faults run, 0 before).
     */
    public static KafkaProducer<String, byte[]> newProducer(CoreOptions config, String clientId) {
        Properties props = KafkaClientConfig.client(config.kafkaBootstrap());
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, config.kafkaLingerMs());
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 0);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 * 1024 * 1024); // a ConnectionReport part of many nodes
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    @Override
    public CompletionStage<Void> appMessage(AppMessage message) {
        return send(topics.app(message.channel()), message.mnId(), message);
    }

    @Override
    public CompletionStage<Void> context(ContextReport report) {
        return send(topics.context(), report.mnId(), report);
    }

    @Override
    public CompletionStage<Void> groupcast(Groupcast groupcast) {
        return send(topics.groupcast(), groupcast.group(), groupcast);
    }

    @Override
    public CompletionStage<Void> event(MnEvent event) {
        return send(topics.mnEvents(), event.mnId(), event);
    }

    @Override
    public CompletionStage<Void> unsent(UnsentMessage unsent) {
        return sendUntilTaken(topics.unsent(), unsent.unicast().recipient(), unsent);
    }

    @Override
    public CompletionStage<Void> delivered(ReceiptBatch receipts) {
        return sendUntilTaken(topics.delivered(), receipts.gatewayId(), receipts);
    }

    @Override
    public CompletionStage<Void> deadLetter(DeadLetter deadLetter) {
        return send(topics.deadLetter(), null, deadLetter);
    }

    @Override
    public CompletionStage<Void> hello(HelloPoA hello) {
        return send(topics.gatewayHello(), hello.gatewayId(), hello);
    }

    @Override
    public CompletionStage<Void> load(LoadReport report) {
        return send(topics.gatewayLoad(), report.gatewayId(), report);
    }

    @Override
    public CompletionStage<Void> connections(ConnectionReport report) {
        return send(topics.gatewayConnections(), report.gatewayId(), report);
    }

    @Override
    public boolean channelExists(String channel) {
        if (knownTopics.contains(topics.app(channel))) {
            return true;
        }
        if (refreshPending.compareAndSet(false, true)) {
            refresher.execute(this::refreshTopics); // the topic may be new: look again, off the I/O thread
        }
        return false;
    }

    /**
     * Sends a record that nobody would send again if it were lost, once a second until Kafka takes it (at most
     * {@link #RETRY_FOR}). Why: a DELIVERED receipt lost while the broker restarts leaves the delivery job holding a
     * message its node has, until it expires it and tells the sender EXPIRED; a lost unsent record leaves a
     * message the session could not send waiting for the node's next session instead of going to its current one.
     */
    private CompletionStage<Void> sendUntilTaken(String topic, String key, Object record) {
        // The first attempt on the caller's thread: taken at once is the common case, and costs no hop.
        return send(topic, key, record).exceptionallyCompose(error ->
                Failsafe.with(RETRY_UNTIL_TAKEN).with(retries).getStageAsync(() -> send(topic, key, record)));
    }

    private static ScheduledExecutorService daemonScheduler(String threadName) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    private CompletionStage<Void> send(String topic, String key, Object record) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        long start = System.nanoTime();
        try {
            flusher.send(producer, new ProducerRecord<>(topic, key, format.write(record)), (metadata, error) -> {
                if (error == null) {
                    metrics.kafkaWrite.observe((System.nanoTime() - start) / 1e9);
                    done.complete(null);
                } else {
                    metrics.kafkaErrors.inc();
                    writeFailed.warn("Kafka write to {} failed: {}", topic, error.toString());
                    done.completeExceptionally(error);
                }
            });
        } catch (RuntimeException e) {
            metrics.kafkaErrors.inc();
            writeFailed.warn("Kafka write to {} refused: {}", topic, e.toString());
            done.completeExceptionally(e);
        }
        return done;
    }

    private void refreshTopics() {
        refreshPending.set(false);
        try {
            Set<String> found = Set.copyOf(admin.listTopics().names().get(10, TimeUnit.SECONDS));
            found.stream().filter(topic -> !knownTopics.contains(topic) && topics.isApp(topic)).forEach(this::requestMetadata);
            knownTopics = found;
        } catch (Exception e) {
            metrics.kafkaErrors.inc();
            LOG.warn("Cannot list Kafka topics: {}", e.toString());
        }
    }

    /**
     * Waits, on the calling thread, until the producer has the partitions of every topic this gateway writes (the
     * core topics and the {@code app.*} topics that exist), or {@code timeoutMs} passed: the producer never blocks a
     * send, so without them the first message to each topic would be refused.
     */
    private void awaitMetadata(long timeoutMs) {
        List<String> pending = new ArrayList<>(List.of(topics.mnEvents(), topics.context(), topics.groupcast(),
                topics.unsent(), topics.delivered(), topics.deadLetter(), topics.gatewayHello(), topics.gatewayLoad(),
                topics.gatewayConnections()));
        knownTopics.stream().filter(topics::isApp).forEach(pending::add);
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!pending.isEmpty() && System.currentTimeMillis() < deadline) {
            pending.removeIf(this::requestMetadata);
            if (!pending.isEmpty()) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        if (!pending.isEmpty()) {
            LOG.warn("No Kafka metadata after {} ms for {}: the first messages to them are refused and sent again",
                    timeoutMs, pending);
        }
    }

    /** Whether the producer has the topic's partitions; if not, it fetches them in the background. */
    private boolean requestMetadata(String topic) {
        try {
            producer.partitionsFor(topic);
            return true;
        } catch (TimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() {
        refresher.shutdownNow();
        retries.shutdownNow();
        admin.close(java.time.Duration.ofSeconds(5));
    }
}
