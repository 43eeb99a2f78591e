package io.ckc.perf;

import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code perf rescale}: the load test users run while they rescale. A fleet sends a constant load
 * through the echo application; every {@code --interval-seconds} one rescale of {@code --ops} runs
 * ({@code ./ckc rescale JOB P}: stop-with-savepoint, resubmit at the new parallelism; with
 * {@code :in-place}, {@code ./ckc rescale JOB P --in-place} on a cluster with the adaptive scheduler).
 * The first interval, before any rescale, is the run's baseline. Beside the load, the paper's
 * outbound scenario mtd_2 runs on {@code --roaming-nodes} more nodes: an application sends each a
 * unicast with a TTL, and 30% of them keep leaving and coming back, so MTD buffers are in flight
 * across every rescale.
 *
 * <p>One sample a second goes to {@code rescale.csv}. Per rescale a {@code RESULT op=JOB:P mode=savepoint|in-place|
 * blue-green} line: the command's own timings, downtime (the longest run of seconds without a single echo), gap (from
 * the first second the rescale shows (no echo, or p99 RTT above twice the steady p99: the median of the 10 one-second
 * p99s before) until p99 is back under that for 3 s in a row; 0 if it never showed), p99_ms (the messages sent from
 * its start until the next rescale's) beside steady_p99_ms, and over its interval: messages lost (sent in it, never
 * echoed), node_duplicates and device_duplicates (echoes a UDP node or an MQTT device got twice, after the node's own
 * dedupe and, for devices, the gateway's), app_duplicates (messages the echo application read twice) and reordered
 * (echoes that came after a later message's of the same node). Then one for the whole run and one for
 * the MTD messages (delivered, expired, expired before their deadline, delivered after it).
 */
@Command(name = "rescale", mixinStandardHelpOptions = true,
        description = "Constant load through the echo app, with MTD messages in flight, while jobs are rescaled: downtime, gap, loss, duplicates, order.")
public final class RescaleCommand implements Callable<Integer> {

    static final String CSV_HEADER = "second,delivered_per_s,rtt_p50_ms,rtt_p99_ms,rescale,sent_per_s";
    static final String SAVEPOINT = "savepoint";
    static final String IN_PLACE = "in-place";
    static final String BLUE_GREEN = "blue-green";
    /** How a job is rescaled: {@code ./ckc rescale JOB P}, {@code --in-place} or {@code --blue-green}. */
    static final List<String> MODES = List.of(SAVEPOINT, IN_PLACE, BLUE_GREEN);

    @Option(names = "--nodes", defaultValue = "2000", description = "Simulated nodes (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--rate", defaultValue = "2000", description = "Messages per second, all nodes together (default ${DEFAULT-VALUE})")
    double rate;

    /** How the echo load's nodes and the MTD scenario's connect. */
    @Mixin
    ProtocolOption protocol = new ProtocolOption();

    @Option(names = "--ops", split = ",", defaultValue = "delivery:2,delivery:1,echo:2,echo:1",
            description = "Rescales in order, JOB:PARALLELISM by savepoint, or JOB:PARALLELISM:in-place or :blue-green "
                    + "(default ${DEFAULT-VALUE})")
    List<String> ops;

    @Option(names = "--mode", split = ",", description = "Run --ops (given without modes) once in each of these modes, "
            + "one after the other on the same load: savepoint, in-place (on a cluster with the adaptive scheduler), "
            + "blue-green; default: as --ops says")
    List<String> modes = List.of();

    @Option(names = "--roaming-nodes", defaultValue = "300",
            description = "Nodes of the MTD scenario beside the load (mtd_2: 30% leave and come back); 0: none (default ${DEFAULT-VALUE})")
    int roamingNodes;

    @Option(names = "--away-seconds", defaultValue = "20", description = "How long a roaming node stays away each time (default ${DEFAULT-VALUE})")
    int awaySeconds;

    @Option(names = "--ttl-ms", defaultValue = "15000",
            description = "TTL of the MTD scenario's messages: shorter than an absence, so some expire and some are replayed (default ${DEFAULT-VALUE})")
    long ttlMs;

    @Option(names = "--interval-seconds", defaultValue = "30", description = "Seconds before the first rescale and between rescales (default ${DEFAULT-VALUE})")
    int intervalSeconds;

    /** What rescales the jobs; only {@code ./ckc perf rescale} has one. */
    private final Rescaler rescaler;

    public RescaleCommand() {
        this(null);
    }

    public RescaleCommand(Rescaler rescaler) {
        this.rescaler = rescaler;
    }

    @Mixin
    StackOptions stack = new StackOptions();

    PrintStream out = System.out;

    /**
     * One second of the run: its echoes, and the run's counters at its end (messages numbered below
     * {@code seqMark} had been sent by then).
     */
    record Second(int second, long delivered, double p50Ms, double p99Ms, int seqMark, long sent, long mnDuplicates,
                  long reordered, long appDuplicates, long deviceDuplicates) {
    }

    /** One rescale: how, when it started (the second of the timeline), and what {@code ./ckc rescale} printed. */
    record Op(String job, int to, String mode, int startSecond, Map<String, String> result) {

        static Op parse(String spec, int startSecond) {
            String[] parts = spec.split(":");
            if (parts.length < 2 || parts.length > 3 || (parts.length == 3 && !MODES.contains(parts[2]))) {
                throw new IllegalArgumentException("--ops: JOB:PARALLELISM or JOB:PARALLELISM:MODE (one of " + MODES
                        + "), got " + spec);
            }
            return new Op(parts[0], Integer.parseInt(parts[1]), parts.length == 3 ? parts[2] : SAVEPOINT, startSecond,
                    Map.of());
        }

        Op withResult(Map<String, String> printed) {
            return new Op(job, to, mode, startSecond, printed);
        }
    }

    @Override
    public Integer call() throws Exception {
        if (rescaler == null) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "perf rescale rescales the stack's jobs: run it as ./ckc perf rescale");
        }
        Results results = new Results(stack.resultsDir);
        List<Op> planned = planned(ops, modes); // bad --ops fail before the load
        List<Second> timeline = new ArrayList<>();
        List<Op> done = new ArrayList<>();
        int[] sentPerNode = new int[nodes];
        AtomicInteger seqMark = new AtomicInteger();
        AppReads app = new AppReads(nodes);
        int seconds = intervalSeconds * (planned.size() + 1);
        MtdCommand mtd = roamingNodes > 0 ? mtdScenario(results.dir(), seconds) : null;
        try (LoadPath fleet = LoadPath.open(protocol.path(), stack, nodes, out);
             TopicFollower appReader = new TopicFollower(stack.bootstrap, Topics.DEFAULT.app(stack.channel), AppMessage.class,
                     app::read, out)) {
            RoundTrips trips = fleet.trips();
            boolean[] running = {true};
            Thread sampler = new Thread(() -> trips.everySecond(() -> running[0], echoes -> {
                synchronized (timeline) {
                    timeline.add(new Second(timeline.size() + 1, echoes.delivered(), echoes.p50Ms(), echoes.p99Ms(),
                            seqMark.get(), trips.sent.get(), trips.duplicates.get(), trips.reordered.get(),
                            app.duplicates.get(), trips.deviceDuplicates.get()));
                }
                return true;
            }), "rescale-sampler");
            sampler.setDaemon(true);
            sampler.start();
            Thread load = new Thread(() -> {
                try {
                    Schedule.runFor(nodes, seconds, rate * 60 / nodes, Schedule.Arrivals.CONSTANT, (node, seq) -> {
                        fleet.send(node, seq);
                        sentPerNode[node] = seq + 1; // this thread only; read after it is joined
                        seqMark.accumulateAndGet(seq + 1, Math::max);
                    }, trips.sent, () -> { });
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "rescale-load");
            FutureTask<MtdRun.Result> roaming = new FutureTask<>(() -> mtd.run(MtdCommand.Configuration.named("mtd_2")));
            if (mtd != null) {
                new Thread(roaming, "rescale-mtd").start();
            }
            load.start();
            long began = System.nanoTime();
            int[] everyNode = java.util.stream.IntStream.range(0, nodes).toArray();
            List<RoundTrips.Watch> during = new ArrayList<>(); // per rescale, the messages sent until the next
            for (int k = 1; k <= planned.size(); k++) {
                Op op = planned.get(k - 1);
                // On the interval's grid, whatever the rescale before took: each gets a full interval after it.
                long due = began + k * intervalSeconds * 1_000_000_000L;
                Thread.sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
                int start;
                synchronized (timeline) {
                    start = timeline.size() + 1;
                }
                out.printf("second %d: ./ckc rescale %s %d%s%n", start, op.job(), op.to(),
                        op.mode().equals(SAVEPOINT) ? "" : " --" + op.mode());
                long now = System.nanoTime();
                if (!during.isEmpty()) {
                    during.get(during.size() - 1).sentUntil(now);
                }
                during.add(trips.watch(everyNode, now));
                done.add(new Op(op.job(), op.to(), op.mode(), start, Map.of()).withResult(rescale(op)));
            }
            load.join();
            if (!during.isEmpty()) {
                during.get(during.size() - 1).sentUntil(System.nanoTime());
            }
            trips.awaitEchoes(15, () -> { });
            running[0] = false;
            sampler.join(2_000);
            List<Second> seconds0;
            synchronized (timeline) {
                seconds0 = List.copyOf(timeline);
            }
            write(results.dir().resolve("rescale.csv"), seconds0, done);
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < done.size(); i++) {
                int end = i + 1 < done.size() ? done.get(i + 1).startSecond() : seconds0.size() + 1;
                lines.add(resultLine(done.get(i), seconds0, end, trips.missing(seqAt(seconds0, done.get(i).startSecond() - 1),
                        seqAt(seconds0, end - 1), sentPerNode), during.get(i).histogram().getValueAtPercentile(99) / 1000.0));
            }
            lines.add(String.format(Locale.ROOT, "RESULT scenario=rescale sent=%d delivered=%d lost=%d app_duplicates=%d "
                            + "mn_duplicates=%d reordered=%d", trips.sent.get(), trips.delivered.get(), trips.lost(),
                    app.duplicates.get(), trips.duplicates.get(), trips.reordered.get()));
            if (mtd != null) {
                MtdRun.Result r = roaming.get();
                lines.add(String.format(Locale.ROOT, "RESULT scenario=rescale-mtd nodes=%d away_s=%d ttl_ms=%d sent=%d "
                                + "delivered=%d expired=%d expired_early=%d delivered_late=%d expired_receipt_after_delivery=%d "
                                + "dropped=%d lost=%d mn_duplicates=%d app_send_failed=%d absences=%d", roamingNodes,
                        awaySeconds, ttlMs, r.sent(), r.replied(), r.expired(), r.expiredEarly(), r.arrivedLate(),
                        r.receivedAndExpired(), r.dropped(), r.unaccounted(), r.duplicates(), r.appSendFailed(),
                        r.absences()));
            }
            Files.write(results.dir().resolve("rescale.txt"), lines, StandardCharsets.UTF_8);
            lines.forEach(out::println);
        } finally {
            if (mtd != null) {
                mtd.out.close();
            }
        }
        return 0;
    }

    /**
     * The paper's mtd_2 on the stack's gateway, sized to last as long as the load: a unicast every 10 s
     * to each roaming node; its progress goes to {@code mtd.log}.
     */
    private MtdCommand mtdScenario(Path dir, int seconds) throws IOException {
        if (stack.gateways.size() != 1) {
            throw new IllegalArgumentException("--gateways: perf rescale runs on one gateway");
        }
        return MtdCommand.besideLoad(stack, protocol, dir, roamingNodes, seconds, ttlMs, awaySeconds, false);
    }

    /** Rescales through the stack's operator commands; returns the key=value pairs of its RESULT line (empty if it failed). */
    private Map<String, String> rescale(Op op) throws Exception {
        return rescaler.rescale(op.job(), op.to(), op.mode(), out);
    }

    /** The rescales to run: {@code ops} as given, or, with {@code modes}, all of them in each mode in turn. */
    static List<Op> planned(List<String> ops, List<String> modes) {
        if (modes.isEmpty()) {
            return ops.stream().map(spec -> Op.parse(spec, 0)).toList();
        }
        List<Op> planned = new ArrayList<>();
        for (String mode : modes) {
            for (String spec : ops) {
                if (spec.split(":").length != 2) {
                    throw new IllegalArgumentException("--mode runs --ops in each mode: give them as JOB:PARALLELISM, got "
                            + spec);
                }
                planned.add(Op.parse(spec + ":" + mode, 0));
            }
        }
        return planned;
    }

    /** The messages sent by the end of second {@code second} (0: none yet). */
    static int seqAt(List<Second> timeline, int second) {
        return second <= 0 ? 0 : timeline.get(Math.min(second, timeline.size()) - 1).seqMark();
    }

    /** The run's counter in {@code counter} at the end of second {@code second} (0 before the first). */
    private static long counterAt(List<Second> timeline, int second, java.util.function.ToLongFunction<Second> counter) {
        return second <= 0 ? 0 : counter.applyAsLong(timeline.get(Math.min(second, timeline.size()) - 1));
    }

    /**
     * The RESULT line of one rescale, from the seconds from its start up to (not including) {@code end}; {@code
     * p99Ms}: the p99 round trip of the messages sent from its start until the next one's.
     */
    static String resultLine(Op op, List<Second> timeline, int end, long lost, double p99Ms) {
        double steady = median(timeline.stream().filter(s -> s.second() >= op.startSecond() - 10
                && s.second() < op.startSecond()).mapToDouble(Second::p99Ms).filter(v -> !Double.isNaN(v)).toArray());
        double limit = 2 * steady;
        List<Second> window = timeline.stream().filter(s -> s.second() >= op.startSecond() && s.second() < end).toList();
        int longestQuiet = 0;
        int quiet = 0;
        Integer disturbed = null;
        Integer back = null;
        for (int i = 0; i < window.size(); i++) {
            Second s = window.get(i);
            quiet = s.delivered() == 0 ? quiet + 1 : 0;
            longestQuiet = Math.max(longestQuiet, quiet);
            if (disturbed == null && (s.delivered() == 0 || !(s.p99Ms() <= limit))) {
                disturbed = i; // the rescale begins to show: the command itself starts a JVM first
            }
            if (disturbed != null && back == null && i > disturbed && i + 3 <= window.size()
                    && window.subList(i, i + 3).stream().allMatch(w -> w.delivered() > 0 && w.p99Ms() <= limit)) {
                back = i;
            }
        }
        String gap = disturbed == null ? "0" : back == null ? "none" : String.valueOf((back - disturbed) * 1000L);
        int before = op.startSecond() - 1;
        int last = end - 1;
        String timings = switch (op.mode()) {
            case IN_PLACE -> "rescale_ms=" + op.result().getOrDefault("rescale_ms", "failed");
            case BLUE_GREEN -> "savepoint_ms=" + op.result().getOrDefault("savepoint_ms", "failed") + " restart_ms="
                    + op.result().getOrDefault("restart_ms", "failed") + " overlap_ms="
                    + op.result().getOrDefault("overlap_ms", "failed");
            default -> "savepoint_ms=" + op.result().getOrDefault("savepoint_ms", "failed") + " restart_ms="
                    + op.result().getOrDefault("restart_ms", "failed");
        };
        long duplicates = counterAt(timeline, last, Second::mnDuplicates) - counterAt(timeline, before, Second::mnDuplicates);
        long deviceDuplicates = counterAt(timeline, last, Second::deviceDuplicates)
                - counterAt(timeline, before, Second::deviceDuplicates);
        return String.format(Locale.ROOT, "RESULT op=%s:%d mode=%s job=%s from=%s to=%d %s caught_up_ms=%s downtime_ms=%d "
                        + "gap_ms=%s p99_ms=%.1f steady_p99_ms=%.1f lost=%d node_duplicates=%d device_duplicates=%d "
                        + "app_duplicates=%d reordered=%d",
                op.job(), op.to(), op.mode(), op.job(), op.result().getOrDefault("from", "?"), op.to(), timings,
                op.result().getOrDefault("caught_up_ms", "unknown"), longestQuiet * 1000, gap, p99Ms, steady, lost,
                duplicates - deviceDuplicates, deviceDuplicates,
                counterAt(timeline, last, Second::appDuplicates) - counterAt(timeline, before, Second::appDuplicates),
                counterAt(timeline, last, Second::reordered) - counterAt(timeline, before, Second::reordered));
    }

    private static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static void write(Path file, List<Second> timeline, List<Op> ops) throws IOException {
        List<String> lines = new ArrayList<>(List.of(CSV_HEADER));
        long sentBefore = 0;
        for (Second s : timeline) {
            String mark = ops.stream().filter(o -> o.startSecond() == s.second())
                    .map(o -> o.job() + "->" + o.to() + (o.mode().equals(SAVEPOINT) ? "" : " " + o.mode()))
                    .findFirst().orElse("");
            lines.add(String.format(Locale.ROOT, "%d,%d,%.3f,%.3f,%s,%d", s.second(), s.delivered(), s.p50Ms(), s.p99Ms(), mark,
                    s.sent() - sentBefore));
            sentBefore = s.sent();
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
