package io.ckc.perf;

import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

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

    @Option(names = "--move", description = "A node coming back connects to the next gateway of --gateways, not the one it left")
    boolean move;

    @Option(names = "--drain-seconds", defaultValue = "40", description = "Wait this long without progress for the last replies (default ${DEFAULT-VALUE})")
    int drainSeconds;

    @Mixin
    StackOptions stack = new StackOptions();

    @Mixin
    ProtocolOption protocol = new ProtocolOption();

    /** Progress and figures; {@code perf rescale}, which runs mtd_2 beside its load, sends them to a file. */
    PrintStream out = System.out;
    private final RecordFormat format = new RecordFormat();

    @Override
    public Integer call() throws Exception {
        Results results = new Results(stack.resultsDir);
        List<MtdReport.Row> rows = new ArrayList<>();
        boolean passed = true;
        for (String id : configs) {
            Configuration configuration = Configuration.named(id);
            if (configuration.mtd() != mtdOn && configuration.disconnectingShare() > 0) {
                throw new IllegalArgumentException(id + " needs the MTD " + (configuration.mtd() ? "on" : "off")
                        + " but the delivery job runs with it " + (mtdOn ? "on" : "off"));
            }
            try (ProcessSampler sampler = new ProcessSampler(ProcessSampler.stackProcesses(stack.pidsDir))) {
                MtdRun.Result result = run(configuration);
                passed &= !configuration.mtd() || result.passes();
                rows.add(MtdReport.Row.of(result, nodes, messages, ratePerMinute));
                results.writeCpu(results.dir().resolve("cpu-" + id + "-" + Results.CKC + ".csv"), sampler.samples());
            }
        }
        MtdReport.appendCsv(results.mtdCsv(), rows); // perf report prints Figures 16 and 17 of every configuration
        MtdReport.printFigure16(out, rows, results.runs());
        MtdReport.printFigure17(out, rows);
        rows.forEach(r -> out.println(r.resultLine()));
        return passed ? 0 : 1;
    }

    /**
     * The paper's mtd_2 beside another scenario's load, sized to last {@code seconds}: {@code nodes} nodes, a unicast
     * every 10 s to each with a TTL of {@code ttlMs}, 30% of them away {@code awaySeconds} at a time (coming back at
     * another gateway with {@code move}), connected as {@code protocol} says; its progress goes to {@code mtd.log} in
     * {@code dir}.
     */
    static MtdCommand besideLoad(StackOptions stack, ProtocolOption protocol, Path dir, int nodes, int seconds,
                                 long ttlMs, int awaySeconds, boolean move) throws IOException {
        MtdCommand mtd = new MtdCommand();
        List<String> args = new ArrayList<>(List.of("--configs", "mtd_2", "--mtd", "true", "--nodes", String.valueOf(nodes),
                "--rate", "6", "--messages", String.valueOf(Math.max(1, seconds / 10)), "--ttl-ms", String.valueOf(ttlMs),
                "--disconnect-seconds", String.valueOf(awaySeconds), "--gateways", String.join(",", stack.gateways),
                "--protocol", protocol.protocol,
                "--bootstrap", stack.bootstrap, "--io-threads", "1", "--results", dir.toString()));
        if (move) {
            args.add("--move");
        }
        if (!stack.mqttGateways.isEmpty()) {
            args.addAll(List.of("--mqtt-gateways", String.join(",", stack.mqttGateways)));
        }
        new picocli.CommandLine(mtd).parseArgs(args.toArray(String[]::new));
        mtd.out = new PrintStream(Files.newOutputStream(dir.resolve("mtd.log")), true, StandardCharsets.UTF_8);
        return mtd;
    }

    /** One configuration on the stack's gateways: connect, send while nodes come and go, drain. */
    MtdRun.Result run(Configuration configuration) throws Exception {
        Topics topics = new Topics(topicPrefix, Topics.DEFAULT.appPrefix());
        String gateway = String.join(",", stack.gateways);
        String sender = "perf-" + configuration.id() + "-" + UUID.randomUUID().toString().substring(0, 8);
        int disconnecting = (int) Math.round(nodes * configuration.disconnectingShare());
        out.printf(Locale.ROOT, "%n%s: %d nodes on %s, %d of them disconnecting for %d s at a time, MTD %s; "
                        + "%d messages to each at %.1f/min, TTL %d ms%n", configuration.id(), nodes, gateway,
                disconnecting, disconnectSeconds, mtdOn ? "on" : "off", messages, ratePerMinute, ttlMs);
        MtdRun run = new MtdRun(configuration, nodes, messages, disconnecting, ttlMs, lateAllowanceMs, move);
        try (TopicFollower replies = new TopicFollower(stack.bootstrap, topics.app(REPLY_CHANNEL), AppMessage.class,
                     run::onReply, out);
             TopicFollower receipts = new TopicFollower(stack.bootstrap, topics.receipts(), Receipt.class, receipt -> {
                 if (receipt.sender().equals(sender)) {
                     run.onReceipt(receipt);
                 }
             }, out);
             SimulatedNodes fleet = SimulatedNodes.open(protocol.path(), stack, nodes, run::delivered);
             KafkaProducer<String, byte[]> app = producer()) {
            run.attach(fleet);
            FleetProgress progress = new FleetProgress(run.trips, fleet::connected, nodes, (long) nodes * messages, out,
                    run::progressExtra);
            fleet.connectAll(1000);
            Fleet.waitFor(() -> fleet.connected() >= nodes, 120, progress);
            out.printf("%n%d nodes connected (%s); sending...%n", fleet.connected(), protocol.protocol);
            Thread.sleep(2_000); // the delivery job learns the last routes
            sendAll(run, fleet, app, topics, sender, progress);
            run.stopDisconnecting();
            Fleet.waitFor(() -> fleet.connected() >= nodes, 60, progress);
            awaitReplies(run, progress);
            out.println();
            run.expiredDeliveries().forEach(out::println);
            run.unaccountedFor().forEach(out::println);
        }
        return run.result();
    }

    /** Each node gets {@code messages} at the rate, from a random phase; disconnections run alongside. */
    private void sendAll(MtdRun run, SimulatedNodes fleet, KafkaProducer<String, byte[]> app, Topics topics, String sender,
                         Runnable progress) throws InterruptedException {
        run.startDisconnecting(System.nanoTime(), TimeUnit.SECONDS.toNanos(connectedSeconds),
                TimeUnit.SECONDS.toNanos(disconnectSeconds));
        Schedule.run(nodes, messages, ratePerMinute, Schedule.Arrivals.CONSTANT, (node, seq) -> {
            String messageId = UUID.randomUUID().toString();
            byte[] payload = new EchoPayload(node, seq, System.nanoTime()).encode();
            Unicast unicast = new Unicast(messageId, sender, fleet.nodeId(node).toString(), payload, ttlMs,
                    System.currentTimeMillis(), true);
            run.sent(messageId, node, seq);
            app.send(new ProducerRecord<>(topics.toMn(), unicast.recipient(), format.write(unicast)),
                    (written, failure) -> {
                        if (failure != null) {
                            run.notTaken(messageId);
                        }
                    });
        }, run.trips.sent, () -> {
            run.tickDisconnections(System.nanoTime());
            progress.run();
        });
        app.flush();
    }

    /** Until every message is answered or known expired, or nothing moved for the drain time. */
    private void awaitReplies(MtdRun run, Runnable progress) throws InterruptedException {
        Fleet.waitUntilDoneOrQuiet(run::allAccountedFor, run::repliedOrExpired, drainSeconds, progress);
        Thread.sleep(1_000); // room for a late duplicate or an expired message wrongly replayed
        progress.run();
    }

    private KafkaProducer<String, byte[]> producer() {
        Properties props = KafkaClientConfig.client(stack.bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(props);
    }
}
