package io.ckc.perf;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code perf overload}: does the path deliver at its limit when offered more than it can take, or
 * collapse? First the saturation load of this machine today: a short stepped search on the first path (the CKC
 * stack), unless {@code --saturation} gives it. Then three phases, one after the other, on each path (the CKC
 * stack, then the bare-Kafka echo): the saturation load for {@code --saturation-seconds} (what the path delivers
 * at its limit),
 * {@code --factor} times that load for {@code --overload-seconds}, then half the saturation load for
 * {@code --after-seconds}. A second-by-second timeline goes to {@code overload-<path>.csv}; the
 * summary ends with
 * {@code RESULT overload_factor=.. path=.. delivered_ratio=.. dropped_sessions=.. recovery_ms=.. saturation_offered_per_s=.. saturation_from=..}:
 * delivered msg/s under overload over delivered msg/s at saturation, sessions that ended without
 * being asked to, and how long after the overload the p99 RTT was back under 100 ms (for five
 * seconds in a row). What the senders shed (messages that waited too long for room in their
 * socket's congestion window, handed back to the application) is counted apart from what was lost.
 */
@Command(name = "overload", mixinStandardHelpOptions = true,
        description = "Saturation load, then a multiple of it, then half of it: delivered throughput, dropped sessions, recovery.")
final class OverloadCommand implements Callable<Integer> {

    static final String CSV_HEADER = "path,second,phase,offered_per_s,delivered_per_s,rtt_p99_ms,rtt_mean_ms,"
            + "connected,shed,dropped_sessions,window_frames,gateway_window_frames,busy_per_s,kernel_drops_per_s,"
            + "held_waiting,held_queued,held_in_flight";
    /** Seconds in a row the p99 must stay under the limit for the path to count as recovered. */
    static final int RECOVERED_SECONDS = 5;
    /** The share of the offered load that those seconds carry, together, to count as recovered. */
    static final double RECOVERED_SHARE = 0.9;

    @Option(names = "--paths", split = ",", defaultValue = "ckc,kafka", description = "Paths to load: ckc (UDP nodes), ckc-in-job (UDP nodes, answered inside the delivery job), mqtt (MQTT 5 devices), mixed (half of each), mosquitto, kafka (default ${DEFAULT-VALUE})")
    List<String> paths;

    @Option(names = "--nodes", defaultValue = "2000", description = "Simulated nodes sharing the load (default ${DEFAULT-VALUE})")
    int nodes;

    /**
     * Why search in the run and not read an older stepped run's folder: machines of this kind differ by up to 2.7x from
     * day to day. 2026-11-25's machine carried all of the "twice the saturation" read from 2026-11-24's folder
     * (delivered ratio 2.000, nothing shed): that run overloaded nothing.
     */
    @Option(names = "--saturation",
            description = "The saturation load, messages per second offered (default: found first in this run, by a "
                    + "short stepped search on the first path)")
    Double saturation;

    @Option(names = "--search-start", defaultValue = "1000", description = "The search's first level, msg/s (default ${DEFAULT-VALUE})")
    double searchStart;

    @Option(names = "--search-step", defaultValue = "1500", description = "The search's rise per level, msg/s (default ${DEFAULT-VALUE})")
    double searchStep;

    @Option(names = "--search-max-steps", defaultValue = "20", description = "The search's levels at most (default ${DEFAULT-VALUE})")
    int searchMaxSteps;

    @Option(names = "--search-seconds", defaultValue = "10",
            description = "One-second samples per search level, after 5 s to a steady state (default ${DEFAULT-VALUE})")
    int searchSeconds;

    @Option(names = "--factor", defaultValue = "2", description = "Overload, as a multiple of the saturation load (default ${DEFAULT-VALUE})")
    double factor;

    @Option(names = "--saturation-seconds", defaultValue = "60", description = "Seconds at the saturation load (default ${DEFAULT-VALUE})")
    int saturationSeconds;

    @Option(names = "--overload-seconds", defaultValue = "300", description = "Seconds of overload (default ${DEFAULT-VALUE})")
    int overloadSeconds;

    @Option(names = "--after-seconds", defaultValue = "60", description = "Seconds at half the saturation load after it (default ${DEFAULT-VALUE})")
    int afterSeconds;

    @Option(names = "--settle-seconds", defaultValue = "10",
            description = "The first seconds of the saturation and overload phases do not count toward their means (default ${DEFAULT-VALUE})")
    int settleSeconds;

    @Option(names = "--arrivals", defaultValue = "POISSON", description = "CONSTANT or POISSON (default ${DEFAULT-VALUE})")
    Schedule.Arrivals arrivals;

    @Option(names = "--gateway-metrics", split = ",", description = "The gateways' metrics URLs (path ckc: their "
            + "congestion windows and busy refusals go into the timeline)")
    List<String> gatewayMetrics = List.of();

    @Mixin
    StackOptions stack = new StackOptions();

    PrintStream out = System.out;

    enum Phase { SATURATION, OVERLOAD, AFTER }

    /**
     * One second of the timeline; {@code windowFrames}: the congestion windows of the load's sockets together, the
     * frames they let be in flight at once; {@code gatewayWindowFrames}: the gateways' windows over their deliveries,
     * together; {@code busyPerSecond}: messages the gateways refused as busy; {@code kernelDropsPerSecond}: datagrams
     * this machine's kernel dropped for a full socket receive buffer (any socket); {@code heldWaiting},
     * {@code heldQueued}, {@code heldInFlight}: the messages the nodes hold, waiting for a gateway to take them, waiting
     * for room in a window, sent and not acknowledged. -1 where the path has none or they were not read (a timeline
     * from before they were kept, a gateway or socket that did not answer).
     */
    record Second(String path, int second, Phase phase, double offeredPerSecond, long delivered, double p99Ms,
                  double meanMs, int connected, long shed, long droppedSessions, long windowFrames,
                  long gatewayWindowFrames, long busyPerSecond, long kernelDropsPerSecond, long heldWaiting,
                  long heldQueued, long heldInFlight) {

        String csv() {
            return String.format(Locale.ROOT, "%s,%d,%s,%.0f,%d,%.3f,%.3f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", path, second,
                    phase.name().toLowerCase(Locale.ROOT), offeredPerSecond, delivered, p99Ms, meanMs, connected, shed,
                    droppedSessions, windowFrames, gatewayWindowFrames, busyPerSecond, kernelDropsPerSecond,
                    heldWaiting, heldQueued, heldInFlight);
        }

        static Second parse(String line) {
            String[] f = line.split(",");
            return new Second(f[0], Integer.parseInt(f[1]), Phase.valueOf(f[2].toUpperCase(Locale.ROOT)),
                    Double.parseDouble(f[3]), Long.parseLong(f[4]), Double.parseDouble(f[5]), Double.parseDouble(f[6]),
                    Integer.parseInt(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9]), column(f, 10), column(f, 11),
                    column(f, 12), column(f, 13), column(f, 14), column(f, 15), column(f, 16));
        }

        private static long column(String[] fields, int at) {
            return fields.length > at ? Long.parseLong(fields[at]) : -1;
        }
    }

    /** What the timeline of one path says. */
    record Outcome(String path, double factor, Summary atSaturation, Summary underOverload, double lowestRatio,
                   long droppedSessions, Long recoveryMs, long sent, long delivered, long shed) {

        double deliveredRatio() {
            return underOverload.mean() / atSaturation.mean();
        }

        long lost() {
            return Math.max(0, sent - delivered - shed);
        }

        String resultLine() {
            return String.format(Locale.ROOT, "RESULT overload_factor=%s path=%s delivered_ratio=%.3f "
                            + "delivered_ratio_lowest_s=%.3f dropped_sessions=%d recovery_ms=%s "
                            + "saturation_throughput_per_s=%.0f overload_throughput_per_s=%.0f shed=%d lost=%d",
                    fmt(factor), path, deliveredRatio(), lowestRatio, droppedSessions,
                    recoveryMs == null ? "none" : recoveryMs.toString(), atSaturation.mean(), underOverload.mean(),
                    shed, lost());
        }

        private static String fmt(double v) {
            return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
        }
    }

    /**
     * Reads a path's timeline: throughput at saturation and under overload (each without its first
     * {@code settle} seconds), the lowest second under overload, and the time from the end of the
     * overload to the first of {@link #RECOVERED_SECONDS} seconds in a row with p99 under {@code p99LimitMs} that
     * carry, together, at least {@link #RECOVERED_SHARE} of the load offered in them.
     */
    static Outcome outcome(String path, double factor, List<Second> timeline, int settle, double p99LimitMs,
                           long sent, long delivered, long shed) {
        List<Second> saturation = timeline.stream().filter(s -> s.phase() == Phase.SATURATION).skip(settle).toList();
        List<Second> overload = timeline.stream().filter(s -> s.phase() == Phase.OVERLOAD).skip(settle).toList();
        List<Second> after = timeline.stream().filter(s -> s.phase() == Phase.AFTER).toList();
        Summary atSaturation = Summary.of(saturation.stream().mapToDouble(Second::delivered).toArray());
        Summary underOverload = Summary.of(overload.stream().mapToDouble(Second::delivered).toArray());
        double lowest = overload.stream().mapToDouble(Second::delivered).min().orElse(Double.NaN) / atSaturation.mean();
        Long recovery = null;
        for (int i = 0; i + RECOVERED_SECONDS <= after.size(); i++) {
            boolean good = true;
            double carried = 0;
            double offered = 0;
            for (int j = i; j < i + RECOVERED_SECONDS; j++) {
                double p99 = after.get(j).p99Ms();
                good &= !Double.isNaN(p99) && p99 < p99LimitMs;
                carried += after.get(j).delivered();
                offered += after.get(j).offeredPerSecond();
            }
            // Why the throughput too: after an overload (2026-11-28) the few messages that got through came back
            // fast while nearly two thirds of the offered load did not come back at all for minutes.
            if (good && carried >= RECOVERED_SHARE * offered) {
                recovery = i * 1000L;
                break;
            }
        }
        long dropped = timeline.isEmpty() ? 0 : timeline.get(timeline.size() - 1).droppedSessions()
                - timeline.stream().filter(s -> s.phase() == Phase.SATURATION).reduce((a, b) -> b)
                .map(Second::droppedSessions).orElse(0L);
        return new Outcome(path, factor, atSaturation, underOverload, lowest, dropped, recovery, sent, delivered, shed);
    }

    /** A saturation load, and where it came from: {@code given}, {@code search}, or {@code search-unsaturated}. */
    record Saturation(double perSecond, String source) {

        String resultFields() {
            return String.format(Locale.ROOT, " saturation_offered_per_s=%.0f saturation_from=%s", perSecond, source);
        }
    }

    /**
     * The search's answer: the first level past the limit, or, if none was, the top level (overloading nothing
     * perhaps: the RESULT line says so).
     */
    static Saturation saturation(SteppedCommand.Sweep sweep) {
        return sweep.saturated().map(r -> new Saturation(r.offeredPerSecond(), "search"))
                .orElseGet(() -> new Saturation(sweep.rows().isEmpty() ? 0
                        : sweep.rows().get(sweep.rows().size() - 1).offeredPerSecond(), "search-unsaturated"));
    }

    @Override
    public Integer call() throws Exception {
        Results results = new Results(stack.resultsDir);
        Saturation load = saturation == null ? null : new Saturation(saturation, "given");
        for (String path : paths) {
            try (LoadPath target = LoadPath.open(path, stack, nodes, out);
                 ProcessSampler sampler = new ProcessSampler(ProcessSampler.processes(stack.pidsDir, target))) {
                int firstSeq = 0;
                if (load == null) {
                    SteppedCommand.Sweep sweep = search(path, target, results);
                    firstSeq = sweep.nextSeq();
                    load = saturation(sweep);
                }
                out.printf(Locale.ROOT, "saturation load %.0f msg/s (%s); overload %.0f msg/s%n", load.perSecond(),
                        load.source(), load.perSecond() * factor);
                List<Second> timeline = run(path, target, load.perSecond(), firstSeq);
                results.writeCpu(results.dir().resolve("cpu-overload-" + path + ".csv"), sampler.samples());
                target.trips().awaitEchoes(10, () -> { });
                List<String> lines = new ArrayList<>(List.of(CSV_HEADER));
                timeline.forEach(s -> lines.add(s.csv()));
                Files.write(results.dir().resolve("overload-" + path + ".csv"), lines, StandardCharsets.UTF_8);
                Outcome outcome = outcome(path, factor, timeline, settleSeconds, ReportCommand.SATURATION_P99_MS,
                        target.trips().sent.get(), target.trips().delivered.get(), target.shed());
                List<String> summary = new ArrayList<>(List.of(outcome.resultLine() + load.resultFields()));
                if (!target.droppedSessionCauses().isEmpty()) {
                    summary.add("sessions ended, " + path + ", by cause: " + target.droppedSessionCauses());
                }
                Files.write(results.dir().resolve("overload.txt"), summary, StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                out.println();
                summary.forEach(out::println);
            }
        }
        return 0;
    }

    /** The short stepped search for today's saturation, on the path the overload runs on next. */
    private SteppedCommand.Sweep search(String path, LoadPath target, Results results) throws Exception {
        out.printf(Locale.ROOT, "searching the saturation load on %s: from %.0f msg/s, %.0f more a level%n", path,
                searchStart, searchStep);
        return SteppedCommand.levels(nodes, searchStart, searchStep, searchMaxSteps, 5, searchSeconds, arrivals, 10, out)
                .sweep(path, target, results, 0);
    }

    private List<Second> run(String path, LoadPath target, double saturationPerSecond, int firstSeq)
            throws InterruptedException {
        Timeline timeline = new Timeline(path, target,
                path.startsWith("ckc") && !gatewayMetrics.isEmpty() ? new GatewayMetricsReader(gatewayMetrics) : null);
        Thread sampler = new Thread(timeline, "overload-sampler");
        sampler.setDaemon(true);
        sampler.start();
        int base = firstSeq;
        base = phase(target, timeline, Phase.SATURATION, saturationPerSecond, saturationSeconds, base);
        base = phase(target, timeline, Phase.OVERLOAD, saturationPerSecond * factor, overloadSeconds, base);
        phase(target, timeline, Phase.AFTER, saturationPerSecond / 2, afterSeconds, base);
        timeline.stop();
        sampler.join();
        return timeline.seconds();
    }

    /** Runs one phase; returns the first sequence number the next phase may use (they stay unique per node). */
    private int phase(LoadPath target, Timeline timeline, Phase phase, double perSecond, int seconds, int base)
            throws InterruptedException {
        timeline.enter(phase, perSecond);
        int[] lastSeq = new int[1];
        Schedule.runFor(nodes, seconds, perSecond * 60 / nodes, arrivals, (node, seq) -> {
            lastSeq[0] = Math.max(lastSeq[0], seq);
            target.send(node, base + seq);
        }, target.trips().sent, () -> {
            if (System.console() != null) {
                out.printf(Locale.ROOT, "\r%s %s: %.0f msg/s offered, %s   ", timeline.path, phase, perSecond,
                        timeline.describe());
                out.flush();
            }
        });
        return base + lastSeq[0] + 1;
    }

    /** Takes one {@link Second} a second until stopped. */
    private static final class Timeline implements Runnable {
        private final String path;
        private final LoadPath target;
        /** The gateways of a CKC path; null for another path. */
        private final GatewayMetricsReader gateways;
        private final List<Second> taken = new ArrayList<>();
        private volatile Phase phase = Phase.SATURATION;
        private volatile double offered;
        private volatile boolean running = true;

        Timeline(String path, LoadPath target, GatewayMetricsReader gateways) {
            this.path = path;
            this.target = target;
            this.gateways = gateways;
        }

        void enter(Phase next, double perSecond) {
            offered = perSecond;
            phase = next;
        }

        @Override
        public void run() {
            int[] second = {0};
            double[] before = {Double.NaN, UdpStatistics.receiveBufferErrors()};
            target.trips().everySecond(() -> running, echoes -> {
                long window;
                long[] held;
                double[] gateway = {-1, Double.NaN};
                try {
                    window = target.windowFrames();
                    held = target.heldMessages();
                    if (gateways != null) {
                        gateway = gatewayFigures();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
                double drops = UdpStatistics.receiveBufferErrors();
                synchronized (taken) {
                    taken.add(new Second(path, ++second[0], phase, offered, echoes.delivered(), echoes.p99Ms(),
                            echoes.meanMs(), target.connected(), target.shed(), target.droppedSessions(), window,
                            (long) gateway[0], perSecond(before[0], gateway[1]), perSecond(before[1], drops),
                            held == null ? -1 : held[0], held == null ? -1 : held[1], held == null ? -1 : held[2]));
                }
                before[0] = gateway[1];
                before[1] = drops;
                return true;
            });
        }

        /** The gateways' delivery windows together and their busy refusals so far; {-1, NaN} if one did not answer. */
        private double[] gatewayFigures() throws InterruptedException {
            try {
                List<PrometheusText.Sample> metrics = gateways.read();
                return new double[] {
                        PrometheusText.sum(metrics, "ckc_gateway_downlink_window_frames", "frames", "limit"),
                        PrometheusText.sum(metrics, "ckc_gateway_rejected_messages_total", "code", "BUSY")};
            } catch (IOException e) {
                return new double[] {-1, Double.NaN};
            }
        }

        private static long perSecond(double before, double now) {
            return Double.isNaN(before) || Double.isNaN(now) ? -1 : (long) (now - before);
        }

        void stop() {
            running = false;
        }

        List<Second> seconds() {
            synchronized (taken) {
                return List.copyOf(taken);
            }
        }

        String describe() {
            synchronized (taken) {
                if (taken.isEmpty()) {
                    return "starting";
                }
                Second last = taken.get(taken.size() - 1);
                return String.format(Locale.ROOT, "%d delivered/s, p99 %.1f ms, %d connected, %d shed", last.delivered(),
                        last.p99Ms(), last.connected(), last.shed());
            }
        }
    }

    /** The timelines of a results folder, by path. */
    static List<Second> read(Results results, String path) throws IOException {
        Path file = results.dir().resolve("overload-" + path + ".csv");
        if (!Files.exists(file)) {
            return List.of();
        }
        return Files.readAllLines(file, StandardCharsets.UTF_8).stream().skip(1).filter(l -> !l.isBlank())
                .map(Second::parse).toList();
    }
}
