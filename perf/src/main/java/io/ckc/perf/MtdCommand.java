package io.ckc.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ckc.protocol.kafka.Json;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The paper's outbound scenarios 2–4 (section 8.4, configurations mtd_1..mtd_5): a core application
 * sends unicasts to every node at a fixed rate; each node answers on a reply channel, and the
 * application measures the round trip core → MN → core. A share of the nodes keeps disconnecting
 * for a while and reconnecting. Whether the MTD is on is the running delivery job's setting
 * ({@code ./ckc perf mtd} restarts the stack for each); this command runs the configurations
 * given, prints Figure 16 and 17 rows, and appends them to a CSV for the combined report.
 */
@Command(name = "mtd", mixinStandardHelpOptions = true,
        description = "Outbound scenarios with disconnecting nodes, MTD on or off (paper Figures 16 and 17).")
final class MtdCommand implements Callable<Integer> {

    static final String REPLY_CHANNEL = "perf-replies";

    /** The paper's Figure 15: share of nodes that disconnect, and whether the MTD is on. */
    record Configuration(String id, double disconnectingShare, boolean mtd) {
        static Configuration named(String id) {
            return switch (id) {
                case "mtd_1" -> new Configuration(id, 0.0, false);
                case "mtd_2" -> new Configuration(id, 0.3, true);
                case "mtd_3" -> new Configuration(id, 0.3, false);
                case "mtd_4" -> new Configuration(id, 0.7, true);
                case "mtd_5" -> new Configuration(id, 0.7, false);
                default -> throw new IllegalArgumentException("no configuration " + id + " (mtd_1..mtd_5)");
            };
        }
    }

    @Option(names = "--gateway", defaultValue = "127.0.0.1:5500", description = "The gateway (default ${DEFAULT-VALUE})")
    String gateway;

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka (default ${DEFAULT-VALUE})")
    String bootstrap;

    @Option(names = "--topic-prefix", defaultValue = "ckc.", description = "Core topic prefix (default ${DEFAULT-VALUE})")
    String topicPrefix;

    @Option(names = "--configs", split = ",", required = true, description = "Configurations to run, e.g. mtd_2,mtd_4")
    List<String> configs;

    @Option(names = "--mtd", required = true, arity = "1", description = "Whether the running delivery job has the MTD on")
    boolean mtdOn;

    @Option(names = "--nodes", defaultValue = "5000", description = "Mobile nodes (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--rate", defaultValue = "4", description = "Messages per minute to each node (default ${DEFAULT-VALUE})")
    double ratePerMinute;

    @Option(names = "--messages", defaultValue = "10", description = "Messages to each node (default ${DEFAULT-VALUE})")
    int messages;

    @Option(names = "--ttl-ms", defaultValue = "20000", description = "TTL the application gives every message (default ${DEFAULT-VALUE})")
    long ttlMs;

    @Option(names = "--disconnect-seconds", defaultValue = "30", description = "How long a node stays away each time (default ${DEFAULT-VALUE})")
    int disconnectSeconds;

    @Option(names = "--connected-seconds", defaultValue = "20", description = "Mean time a disconnecting node stays connected between absences (default ${DEFAULT-VALUE})")
    int connectedSeconds;

    @Option(names = "--late-allowance-ms", defaultValue = "1000", description = "A message arriving later than this past its deadline counts as an expired delivery (default ${DEFAULT-VALUE})")
    long lateAllowanceMs;

    @Option(names = "--drain-seconds", defaultValue = "40", description = "Wait this long without progress for the last replies (default ${DEFAULT-VALUE})")
    int drainSeconds;

    @Option(names = "--csv", description = "Append the rows to this CSV file")
    Path csv;

    @Option(names = "--io-threads", defaultValue = "2", description = "Simulator I/O threads (default ${DEFAULT-VALUE})")
    int ioThreads;

    private final PrintStream out = System.out;
    private final ObjectMapper mapper = Json.newMapper();

    @Override
    public Integer call() throws Exception {
        List<MtdRun.Result> results = new ArrayList<>();
        for (String id : configs) {
            Configuration configuration = Configuration.named(id);
            if (configuration.mtd() != mtdOn && configuration.disconnectingShare() > 0) {
                throw new IllegalArgumentException(id + " needs the MTD " + (configuration.mtd() ? "on" : "off")
                        + " but the delivery job runs with it " + (mtdOn ? "on" : "off"));
            }
            results.add(run(configuration));
        }
        MtdReport.figure16(out, results);
        MtdReport.figure17(out, results);
        if (csv != null) {
            MtdReport.appendCsv(csv, results); // mtd-table prints all configurations and their RESULT lines
        } else {
            results.forEach(r -> out.println(MtdReport.Row.of(r).resultLine()));
        }
        return results.stream().allMatch(r -> !r.configuration().mtd() || r.passes()) ? 0 : 1;
    }

    private MtdRun.Result run(Configuration configuration) throws Exception {
        Topics topics = new Topics(topicPrefix, Topics.DEFAULT.appPrefix());
        String sender = "perf-" + configuration.id() + "-" + UUID.randomUUID().toString().substring(0, 8);
        int disconnecting = (int) Math.round(nodes * configuration.disconnectingShare());
        out.printf(Locale.ROOT, "%n%s: %d nodes on %s, %d of them disconnecting for %d s at a time, MTD %s; "
                        + "%d messages to each at %.1f/min, TTL %d ms%n", configuration.id(), nodes, gateway,
                disconnecting, disconnectSeconds, mtdOn ? "on" : "off", messages, ratePerMinute, ttlMs);
        MtdRun run = new MtdRun(configuration, nodes, messages, disconnecting, ttlMs, lateAllowanceMs);
        AtomicBoolean following = new AtomicBoolean(true);
        List<Thread> followers = List.of(
                follow(topics.app(REPLY_CHANNEL), AppMessage.class, run::onReply, following),
                follow(topics.receipts(), Receipt.class, receipt -> {
                    if (receipt.sender().equals(sender)) {
                        run.onReceipt(receipt);
                    }
                }, following));
        try (Fleet fleet = new Fleet(nodes, List.of(DemoCommand.address(gateway)), ioThreads, run::listener);
             KafkaProducer<String, byte[]> app = producer()) {
            run.attach(fleet);
            FleetProgress progress = new FleetProgress(fleet, (long) nodes * messages, out, run::progressExtra);
            fleet.connectAll(1000);
            Fleet.waitFor(() -> fleet.connected.get() >= nodes, 120, progress);
            out.printf("%n%d nodes connected; sending...%n", fleet.connected.get());
            Thread.sleep(2_000); // the delivery job learns the last routes
            sendAll(run, fleet, app, topics, sender, progress);
            run.stopDisconnecting(fleet);
            Fleet.waitFor(() -> fleet.connected.get() >= nodes, 60, progress);
            awaitReplies(run, fleet, progress);
            out.println();
        } finally {
            following.set(false);
            for (Thread follower : followers) {
                follower.join(5_000);
            }
        }
        return run.result();
    }

    /** Each node gets {@code messages} at the rate, from a random phase; disconnections run alongside. */
    private void sendAll(MtdRun run, Fleet fleet, KafkaProducer<String, byte[]> app, Topics topics, String sender,
                         Runnable progress) throws InterruptedException {
        long intervalNanos = (long) (TimeUnit.MINUTES.toNanos(1) / ratePerMinute);
        long start = System.nanoTime();
        Random random = new Random(7);
        PriorityQueue<long[]> due = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        for (int i = 0; i < nodes; i++) {
            due.add(new long[] {start + (long) (random.nextDouble() * intervalNanos), i, 0});
        }
        run.startDisconnecting(fleet, start, TimeUnit.SECONDS.toNanos(connectedSeconds),
                TimeUnit.SECONDS.toNanos(disconnectSeconds));
        long nextTick = start;
        while (!due.isEmpty()) {
            long now = System.nanoTime();
            while (!due.isEmpty() && due.peek()[0] <= now) {
                long[] entry = due.poll();
                int node = (int) entry[1];
                int seq = (int) entry[2];
                String messageId = UUID.randomUUID().toString();
                byte[] payload = new EchoPayload(node, seq, System.nanoTime()).encode();
                Unicast unicast = new Unicast(messageId, sender, fleet.node(node).id().toString(), payload, ttlMs,
                        System.currentTimeMillis(), true);
                run.sent(messageId, node, seq);
                fleet.sent.incrementAndGet();
                app.send(new ProducerRecord<>(topics.toMn(), unicast.recipient(), Json.write(mapper, unicast)));
                if (seq + 1 < messages) {
                    due.add(new long[] {entry[0] + intervalNanos, node, seq + 1});
                }
            }
            if (now >= nextTick) {
                run.tickDisconnections(fleet, now);
                progress.run();
                nextTick = now + TimeUnit.MILLISECONDS.toNanos(200);
            }
            long sleep = due.isEmpty() ? 0 : Math.min(due.peek()[0] - System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(5));
            if (sleep > 0) {
                TimeUnit.NANOSECONDS.sleep(sleep);
            }
        }
        app.flush();
    }

    /** Until every message is answered or known expired, or nothing moved for the drain time. */
    private void awaitReplies(MtdRun run, Fleet fleet, Runnable progress) throws InterruptedException {
        long last = -1;
        long quietSince = System.nanoTime();
        while (!run.allAccountedFor()) {
            Thread.sleep(500);
            progress.run();
            long now = run.repliedOrExpired();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(drainSeconds)) {
                break;
            }
        }
        Thread.sleep(1_000); // room for a late duplicate or an expired message wrongly replayed
        progress.run();
    }

    private KafkaProducer<String, byte[]> producer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    /** Follows a topic from its current end (only this run's records) on a daemon thread. */
    private <T> Thread follow(String topic, Class<T> type, Consumer<T> sink, AtomicBoolean running)
            throws InterruptedException {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        java.util.concurrent.CountDownLatch positioned = new java.util.concurrent.CountDownLatch(1);
        ObjectMapper reader = Json.newMapper();
        Thread thread = new Thread(() -> {
            try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
                List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                        .map(p -> new TopicPartition(topic, p.partition())).toList();
                consumer.assign(partitions);
                consumer.seekToEnd(partitions);
                partitions.forEach(consumer::position); // resolve the end now, before anything is sent
                positioned.countDown();
                while (running.get()) {
                    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                        try {
                            sink.accept(Json.read(reader, record.value(), type));
                        } catch (IOException e) {
                            out.println("Skipping an unreadable record on " + topic + ": " + e.getMessage());
                        }
                    }
                }
            }
        }, "follow-" + topic);
        thread.setDaemon(true);
        thread.start();
        if (!positioned.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("cannot read " + topic + " from " + bootstrap);
        }
        return thread;
    }
}
