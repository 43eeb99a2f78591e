package io.ckc.perf;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code perf stepped}: the load-testing study's method (its sections 3.6-3.7) on the CKC stack
 * and then on the bare-Kafka baseline, in one run. The offered load starts at {@code --start}
 * messages per second and rises by {@code --step}; each level runs {@code --warmup-seconds} to a
 * steady state, then {@code --samples} samples of one second each (echoes per second, p99 and
 * mean RTT), summarised by their mean and 95% confidence interval. A path stops at its saturation
 * point: the first level whose p99 RTT passes 100 ms or that lost a message. The bare-Kafka echo ({@code kafka})
 * steps on to its own saturation ({@code --baseline-max-steps} levels at most; past the CKC paths' {@code --max-steps}
 * each level is a quarter above the one before, so that it gets there in minutes: it carried over 50,000 msg/s on
 * 2026-12-04), so that a CKC path's last good level is compared with the echo's, not with the highest level it
 * happened to reach. One {@code RESULT} line per step and path, one per path for its saturation, and one per CKC
 * path for its last good level as a share of the echo's ({@link Knee#comparison}).
 */
@Command(name = "stepped", mixinStandardHelpOptions = true,
        description = "Stepped load on the CKC stack and the bare-Kafka baseline until saturation.")
final class SteppedCommand implements Callable<Integer> {

    @Option(names = "--paths", split = ",", defaultValue = "ckc,kafka", description = "Paths to load: ckc (UDP nodes), ckc-in-job (UDP nodes, answered inside the delivery job), mqtt (MQTT 5 devices), mixed (half of each), mosquitto, kafka (default ${DEFAULT-VALUE})")
    List<String> paths;

    @Option(names = "--nodes", defaultValue = "2000", description = "Simulated nodes sharing the load (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--start", defaultValue = "1000", description = "First level, messages per second (default ${DEFAULT-VALUE})")
    double start;

    @Option(names = "--step", defaultValue = "1500", description = "Rise per level, messages per second (default ${DEFAULT-VALUE})")
    double step;

    @Option(names = "--max-steps", defaultValue = "14", description = "Levels at most on a CKC or Mosquitto path (default ${DEFAULT-VALUE})")
    int maxSteps;

    @Option(names = "--baseline-max-steps", defaultValue = "30", description = "Levels at most on the bare-Kafka echo, "
            + "which steps on to its own saturation, each level past --max-steps a quarter above the one before "
            + "(default ${DEFAULT-VALUE})")
    int baselineMaxSteps = 30; // also when a test or another command builds it without picocli

    /** Past this many levels each is {@link #GROWTH} times the one before; the CKC paths never get there. */
    int arithmeticLevels = Integer.MAX_VALUE;

    /** How much each level past {@link #arithmeticLevels} offers above the one before. */
    static final double GROWTH = 1.25;

    @Option(names = "--warmup-seconds", defaultValue = "8", description = "Seconds to a steady state at each level (default ${DEFAULT-VALUE})")
    int warmupSeconds;

    @Option(names = "--samples", defaultValue = "30", description = "One-second samples per level (default ${DEFAULT-VALUE})")
    int samples;

    @Option(names = "--arrivals", defaultValue = "POISSON", description = "CONSTANT or POISSON (default ${DEFAULT-VALUE}, as the study)")
    Schedule.Arrivals arrivals;

    @Option(names = "--drain-seconds", defaultValue = "10", description = "After a level, wait this long without progress for its last echoes (default ${DEFAULT-VALUE})")
    int drainSeconds;

    @Mixin
    StackOptions stack = new StackOptions();

    PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        Results results = new Results(stack.resultsDir);
        Map<String, Knee> knees = new LinkedHashMap<>();
        for (String path : paths) {
            try (LoadPath target = LoadPath.open(path, stack, nodes, out);
                 ProcessSampler sampler = new ProcessSampler(ProcessSampler.processes(stack.pidsDir, target))) {
                SteppedCommand levels = levels(nodes, start, step, maxSteps, warmupSeconds, samples, arrivals,
                        drainSeconds, out);
                if (path.equals(BASELINE)) {
                    levels.arithmeticLevels = maxSteps;
                    levels.maxSteps = baselineMaxSteps;
                }
                Sweep sweep = levels.sweep(path, target, results, 0);
                results.writeCpu(results.dir().resolve("cpu-stepped-" + path + ".csv"), sampler.samples());
                Knee knee = Knee.of(sweep);
                knees.put(path, knee);
                out.println(knee.resultLine(path));
            }
        }
        Knee baseline = knees.get(BASELINE);
        if (baseline != null) {
            knees.forEach((path, knee) -> {
                if (!path.equals(BASELINE)) {
                    out.println(knee.comparison(path, baseline));
                }
            });
        }
        return 0;
    }

    /** The path every other is compared with: the bare-Kafka echo. */
    static final String BASELINE = "kafka";

    /**
     * Where a path's sweep ended: its last level within the limit (0 if even the first was past it), and whether a
     * level past the limit was reached at all (if not, the last good level only bounds the saturation from below).
     */
    record Knee(double lastGoodPerSecond, double saturationPerSecond, boolean saturated) {

        static Knee of(Sweep sweep) {
            List<Results.StepRow> rows = sweep.rows();
            Optional<Results.StepRow> past = sweep.saturated();
            if (past.isPresent()) {
                int at = rows.indexOf(past.get());
                return new Knee(at > 0 ? rows.get(at - 1).offeredPerSecond() : 0, past.get().offeredPerSecond(), true);
            }
            return new Knee(rows.isEmpty() ? 0 : rows.get(rows.size() - 1).offeredPerSecond(), 0, false);
        }

        String resultLine(String path) {
            return saturated
                    ? String.format(Locale.ROOT, "RESULT path=%s saturation_offered_per_s=%.0f last_good_offered_per_s=%s",
                            path, saturationPerSecond, lastGoodPerSecond > 0 ? String.format(Locale.ROOT, "%.0f", lastGoodPerSecond) : "none")
                    : String.format(Locale.ROOT, "RESULT path=%s saturation_offered_per_s=none max_offered_per_s=%.0f",
                            path, lastGoodPerSecond);
        }

        /**
         * This path's last good level as a share of the baseline's; when the baseline never saturated, the share is an
         * upper bound ({@code baseline_saturated=false}).
         */
        String comparison(String path, Knee baseline) {
            double ratio = baseline.lastGoodPerSecond > 0 ? lastGoodPerSecond / baseline.lastGoodPerSecond : 0;
            return String.format(Locale.ROOT, "RESULT path=%s compared_to=%s last_good_offered_per_s=%.0f "
                            + "baseline_last_good_offered_per_s=%.0f ratio_to_baseline=%.3f baseline_saturated=%s",
                    path, BASELINE, lastGoodPerSecond, baseline.lastGoodPerSecond, ratio, baseline.saturated);
        }
    }

    /** A sweep for another scenario's load (its levels, their timing, its output), to run with {@link #sweep}. */
    static SteppedCommand levels(int nodes, double start, double step, int maxSteps, int warmupSeconds, int samples,
                                 Schedule.Arrivals arrivals, int drainSeconds, PrintStream out) {
        SteppedCommand stepped = new SteppedCommand();
        stepped.nodes = nodes;
        stepped.start = start;
        stepped.step = step;
        stepped.maxSteps = maxSteps;
        stepped.warmupSeconds = warmupSeconds;
        stepped.samples = samples;
        stepped.arrivals = arrivals;
        stepped.drainSeconds = drainSeconds;
        stepped.out = out;
        return stepped;
    }

    /** The levels of a sweep, and the first sequence number a load after it may use on the same path. */
    record Sweep(List<Results.StepRow> rows, int nextSeq) {

        /** The first level past the limit ({@link ReportCommand#SATURATION_P99_MS}, or a loss), if one was. */
        Optional<Results.StepRow> saturated() {
            return rows.stream().filter(r -> r.saturated(ReportCommand.SATURATION_P99_MS)).findFirst();
        }
    }

    /**
     * Levels until saturation or the last. Each node's sequence numbers start at {@code firstSeq}: above any it sent
     * before on this path.
     */
    Sweep sweep(String path, LoadPath target, Results results, int firstSeq) throws Exception {
        List<Results.StepRow> rows = new ArrayList<>();
        RoundTrips trips = target.trips();
        for (int level = 1; level <= maxSteps; level++) {
            double offered = offeredAt(level);
            double perNodePerMinute = offered * 60 / nodes;
            // One second of margin: the sampler's last sample falls inside the level, not on its edge.
            int seconds = warmupSeconds + samples + 1;
            long sentBefore = trips.sent.get();
            long deliveredBefore = trips.delivered.get();
            int base = firstSeq;
            Sampling sampling = new Sampling(trips, warmupSeconds, samples);
            Thread sampler = new Thread(sampling, "step-sampler");
            sampler.setDaemon(true);
            sampler.start();
            int level0 = level;
            int[] lastSeq = new int[1];
            Schedule.runFor(nodes, seconds, perNodePerMinute, arrivals, (node, seq) -> {
                lastSeq[0] = Math.max(lastSeq[0], seq);
                target.send(node, base + seq);
            }, trips.sent, () -> progress(path, level0, offered, trips, sampling));
            sampling.stop();
            sampler.join();
            trips.awaitEchoes(drainSeconds, () -> { });
            firstSeq += lastSeq[0] + 1; // sequence numbers stay unique per node across levels
            long sent = trips.sent.get() - sentBefore;
            long lost = sent - (trips.delivered.get() - deliveredBefore);
            Results.StepRow row = new Results.StepRow(path, level, offered, Summary.of(sampling.throughput()),
                    Summary.of(sampling.p99()), Summary.of(sampling.mean()), sent, Math.max(0, lost));
            results.addStep(row);
            results.addStepSamples(row, sampling.taken());
            rows.add(row);
            out.println();
            out.println(row.resultLine());
            if (row.saturated(ReportCommand.SATURATION_P99_MS)) {
                break;
            }
        }
        return new Sweep(rows, firstSeq);
    }

    private void progress(String path, int level, double offered, RoundTrips trips, Sampling sampling) {
        if (System.console() != null) {
            out.printf(Locale.ROOT, "\r%s step %d: %.0f msg/s offered, %s, sent %d, delivered %d   ", path, level,
                    offered, sampling.describe(), trips.sent.get(), trips.delivered.get());
            out.flush();
        }
    }

    /** The load level {@code level} offers, messages per second. */
    double offeredAt(int level) {
        if (level <= arithmeticLevels) {
            return start + (level - 1) * step;
        }
        return Math.round((start + (arithmeticLevels - 1) * step) * Math.pow(GROWTH, level - arithmeticLevels));
    }

    /** One sample a second once the warm-up is over: echoes per second, p99 and mean RTT in ms. */
    private static final class Sampling implements Runnable {
        private final RoundTrips trips;
        private final int warmupSeconds;
        private final int wanted;
        private final List<double[]> taken = new ArrayList<>();
        private volatile boolean running = true;

        Sampling(RoundTrips trips, int warmupSeconds, int wanted) {
            this.trips = trips;
            this.warmupSeconds = warmupSeconds;
            this.wanted = wanted;
        }

        @Override
        public void run() {
            int[] second = {0};
            trips.everySecond(() -> running, echoes -> {
                if (++second[0] <= warmupSeconds) {
                    return true;
                }
                synchronized (taken) {
                    if (taken.size() == wanted) {
                        // Why: the level runs a second past its samples; it keeps exactly the samples it asked for.
                        return false;
                    }
                    taken.add(new double[] {echoes.delivered(), echoes.p99Ms(), echoes.meanMs(), System.currentTimeMillis()});
                    return true;
                }
            });
        }

        void stop() {
            running = false;
        }

        List<double[]> taken() {
            synchronized (taken) {
                return List.copyOf(taken);
            }
        }

        double[] throughput() {
            return column(0);
        }

        double[] p99() {
            return column(1);
        }

        double[] mean() {
            return column(2);
        }

        String describe() {
            synchronized (taken) {
                if (taken.isEmpty()) {
                    return "warming up";
                }
                double[] last = taken.get(taken.size() - 1);
                return String.format(Locale.ROOT, "sample %d: %.0f msg/s p99 %.1f ms", taken.size(), last[0], last[1]);
            }
        }

        private double[] column(int i) {
            synchronized (taken) {
                return taken.stream().mapToDouble(s -> s[i]).toArray();
            }
        }
    }
}
