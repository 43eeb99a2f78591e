package io.ckc.perf;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code perf rescale}: the load test users run while they rescale. A fleet sends a constant load
 * through the echo application; every {@code --interval-seconds} one rescale of {@code --ops} runs
 * ({@code ./ckc rescale JOB P}: stop-with-savepoint, resubmit at the new parallelism). The first
 * interval, before any rescale, is the run's baseline. One sample a second goes to
 * {@code rescale.csv}; per rescale a {@code RESULT op=savepoint job=.. from=.. to=.. savepoint_ms=..
 * restart_ms=.. downtime_ms=.. gap_ms=..} line (downtime: the longest run of seconds without a single
 * echo; gap: from the first second the rescale shows (no echo, or p99 RTT above twice its median of the
 * 10 s before) until p99 is back under that for 3 s in a row; 0 if it never showed), and for the run {@code RESULT scenario=rescale sent=.. delivered=.. lost=.. mn_duplicates=..
 * reordered=..} (echoes a node got twice after its own dedupe, and echoes that came after a later
 * message's).
 */
@Command(name = "rescale", mixinStandardHelpOptions = true,
        description = "Constant load through the echo app while jobs are rescaled by savepoint: downtime, gap, loss, duplicates, order.")
final class RescaleCommand implements Callable<Integer> {

    static final String CSV_HEADER = "second,delivered_per_s,rtt_p50_ms,rtt_p99_ms,rescale";

    @Option(names = "--nodes", defaultValue = "2000", description = "Simulated nodes (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--rate", defaultValue = "2000", description = "Messages per second, all nodes together (default ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--ops", split = ",", defaultValue = "delivery:2,delivery:1,echo:2,echo:1",
            description = "Rescales in order, JOB:PARALLELISM (default ${DEFAULT-VALUE})")
    List<String> ops;

    @Option(names = "--interval-seconds", defaultValue = "30", description = "Seconds before the first rescale and between rescales (default ${DEFAULT-VALUE})")
    int intervalSeconds;

    @Option(names = "--ckc", required = true, description = "The ckc script that rescales")
    Path ckc;

    @Mixin
    StackOptions stack = new StackOptions();

    PrintStream out = System.out;

    /** One second of the run. */
    record Second(int second, long delivered, double p50Ms, double p99Ms) {
    }

    /** One rescale: when it started (the second of the timeline), and what {@code ./ckc rescale} printed. */
    record Op(String job, int to, int startSecond, Map<String, String> result) {
    }

    @Override
    public Integer call() throws Exception {
        Results results = new Results(stack.resultsDir);
        List<Second> timeline = new ArrayList<>();
        List<Op> done = new ArrayList<>();
        try (LoadPath fleet = LoadPath.open(Results.CKC, stack, nodes, out)) {
            RoundTrips trips = fleet.trips();
            boolean[] running = {true};
            Thread sampler = new Thread(() -> trips.everySecond(() -> running[0], echoes -> {
                synchronized (timeline) {
                    timeline.add(new Second(timeline.size() + 1, echoes.delivered(), echoes.p50Ms(), echoes.p99Ms()));
                }
                return true;
            }), "rescale-sampler");
            sampler.setDaemon(true);
            sampler.start();
            int seconds = intervalSeconds * (ops.size() + 1);
            Thread load = new Thread(() -> {
                try {
                    Schedule.runFor(nodes, seconds, rate * 60 / nodes, Schedule.Arrivals.CONSTANT, fleet::send,
                            trips.sent, () -> { });
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "rescale-load");
            load.start();
            long began = System.nanoTime();
            for (int k = 1; k <= ops.size(); k++) {
                String op = ops.get(k - 1);
                // On the interval's grid, whatever the rescale before took: each gets a full interval after it.
                long due = began + k * intervalSeconds * 1_000_000_000L;
                Thread.sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
                String[] parts = op.split(":");
                int start;
                synchronized (timeline) {
                    start = timeline.size() + 1;
                }
                out.printf("second %d: ./ckc rescale %s %s%n", start, parts[0], parts[1]);
                done.add(new Op(parts[0], Integer.parseInt(parts[1]), start, rescale(parts[0], parts[1])));
            }
            load.join();
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
                lines.add(resultLine(done.get(i), seconds0, end));
            }
            lines.add(String.format(Locale.ROOT, "RESULT scenario=rescale sent=%d delivered=%d lost=%d mn_duplicates=%d "
                            + "reordered=%d", trips.sent.get(), trips.delivered.get(), trips.lost(), trips.duplicates.get(),
                    trips.reordered.get()));
            Files.write(results.dir().resolve("rescale.txt"), lines, StandardCharsets.UTF_8);
            lines.forEach(out::println);
        }
        return 0;
    }

    /** Runs {@code ckc rescale JOB P}; returns the key=value pairs of its RESULT line (empty if it failed). */
    private Map<String, String> rescale(String job, String parallelism) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(ckc.toString(), "rescale", job, parallelism).redirectErrorStream(true).start();
        Map<String, String> result = new LinkedHashMap<>();
        for (String line : new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
            out.println("  " + line);
            if (line.startsWith("RESULT ")) {
                for (String pair : line.substring(7).split(" ")) {
                    int eq = pair.indexOf('=');
                    if (eq > 0) {
                        result.put(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                }
            }
        }
        process.waitFor();
        return result;
    }

    /** The RESULT line of one rescale, from the seconds from its start up to (not including) {@code end}. */
    static String resultLine(Op op, List<Second> timeline, int end) {
        double limit = 2 * median(timeline.stream().filter(s -> s.second() >= op.startSecond() - 10
                && s.second() < op.startSecond()).mapToDouble(Second::p99Ms).filter(v -> !Double.isNaN(v)).toArray());
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
        return String.format(Locale.ROOT, "RESULT op=savepoint job=%s from=%s to=%d savepoint_ms=%s restart_ms=%s "
                        + "caught_up_ms=%s downtime_ms=%d gap_ms=%s p99_before_ms=%.1f", op.job(),
                op.result().getOrDefault("from", "?"), op.to(), op.result().getOrDefault("savepoint_ms", "failed"),
                op.result().getOrDefault("restart_ms", "failed"), op.result().getOrDefault("caught_up_ms", "unknown"),
                longestQuiet * 1000, gap, limit / 2);
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
        for (Second s : timeline) {
            String mark = ops.stream().filter(o -> o.startSecond() == s.second()).map(o -> o.job() + "->" + o.to())
                    .findFirst().orElse("");
            lines.add(String.format(Locale.ROOT, "%d,%d,%.3f,%.3f,%s", s.second(), s.delivered(), s.p50Ms(), s.p99Ms(), mark));
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
