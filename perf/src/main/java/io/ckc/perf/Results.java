package io.ckc.perf;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A results folder ({@code perf/results/<date>-<scenario>/}): every run writes its figures here and
 * {@code perf report} builds the tables and the HTML report from them, so a report can be made
 * again from the files alone.
 *
 * <ul>
 *   <li>{@code runs.csv}: one {@link RunRow} per configuration and path (ckc or the kafka baseline)</li>
 *   <li>{@code rtt-<config>-<path>.hlog}: every round trip of the run (HdrHistogram log, µs)</li>
 *   <li>{@code seq-<config>-<path>.csv}: mean RTT by message sequence number</li>
 *   <li>{@code cpu-<config>-<path>.csv}: CPU and memory of each process, once a second</li>
 *   <li>{@code stepped.csv}: one {@link StepRow} per load step and path</li>
 *   <li>{@code mtd.csv}: one {@link MtdReport.Row} per MTD configuration (its CPU in {@code cpu-<config>-ckc.csv})</li>
 * </ul>
 */
final class Results {

    static final String CKC = "ckc";
    static final String KAFKA = "kafka";
    /** CKC's gateways with MQTT devices. */
    static final String MQTT = "mqtt";
    /** CKC's gateways with half UDP nodes and half MQTT devices at once. */
    static final String MIXED = "mixed";
    /** A plain Mosquitto broker with MQTT devices and an echo client. */
    static final String MOSQUITTO = "mosquitto";
    /** CKC's gateways with UDP nodes, answered by the echo inside the delivery job: one broker pass less than ckc. */
    static final String CKC_IN_JOB = "ckc-in-job";

    private final Path dir;

    Results(Path dir) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir);
    }

    Path dir() {
        return dir;
    }

    /** One configuration run on one path. RTTs in ms; throughput in echoes per second. */
    record RunRow(String config, String path, int nodes, int appParallelism, int gateways, int messages,
                  double ratePerMinute, long sent, long delivered, long duplicates, double seconds, double meanMs,
                  double sdMs, double p50Ms, double p99Ms, double maxMs) {

        static final String HEADER = "config,path,nodes,app_parallelism,gateways,messages,rate_per_min,sent,delivered,"
                + "lost,duplicates,te,seconds,throughput_per_s,rtt_mean_ms,rtt_sd_ms,rtt_p50_ms,rtt_p99_ms,rtt_max_ms";

        /** Whether the run went through CKC (UDP nodes or MQTT devices), not the bare-Kafka baseline. */
        boolean throughCkc() {
            return !path.equals(KAFKA);
        }

        static RunRow of(String config, String path, int nodes, int app, int gateways, int messages, double rate,
                         RoundTrips trips, double seconds) {
            Histogram h = trips.total();
            return new RunRow(config, path, nodes, app, gateways, messages, rate, trips.sent.get(),
                    trips.delivered.get(), trips.duplicates.get(), seconds, h.getMean() / 1000.0,
                    h.getStdDeviation() / 1000.0, h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
        }

        long lost() {
            return sent - delivered;
        }

        /** Delivery rate, percent. */
        double te() {
            return sent == 0 ? 0 : 100.0 * delivered / sent;
        }

        double throughput() {
            return seconds <= 0 ? 0 : delivered / seconds;
        }

        String csv() {
            return String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%d,%.3f,%d,%d,%d,%d,%.4f,%.3f,%.2f,%.3f,%.3f,%.3f,%.3f,%.3f",
                    config, path, nodes, appParallelism, gateways, messages, ratePerMinute, sent, delivered, lost(),
                    duplicates, te(), seconds, throughput(), meanMs, sdMs, p50Ms, p99Ms, maxMs);
        }

        static RunRow parse(String line) {
            String[] f = line.split(",");
            return new RunRow(f[0], f[1], Integer.parseInt(f[2]), Integer.parseInt(f[3]), Integer.parseInt(f[4]),
                    Integer.parseInt(f[5]), Double.parseDouble(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8]),
                    Long.parseLong(f[10]), Double.parseDouble(f[12]), Double.parseDouble(f[14]),
                    Double.parseDouble(f[15]), Double.parseDouble(f[16]), Double.parseDouble(f[17]),
                    Double.parseDouble(f[18]));
        }

        String resultLine() {
            return String.format(Locale.ROOT, "RESULT config=%s path=%s nodes=%d app=%d gateways=%d sent=%d delivered=%d "
                            + "lost=%d duplicates=%d te=%.2f rtt_mean_ms=%.2f rtt_p50_ms=%.2f rtt_p99_ms=%.2f "
                            + "throughput_per_s=%.1f", config, path, nodes, appParallelism, gateways, sent, delivered,
                    lost(), duplicates, te(), meanMs, p50Ms, p99Ms, throughput());
        }
    }

    /**
     * One step of the stepped run on one path: the offered load and the summaries of its samples
     * (one a second after the steady state): echoes per second, p99 and mean RTT (ms).
     */
    record StepRow(String path, int step, double offeredPerSecond, Summary throughput, Summary p99Ms, Summary meanMs,
                   long sent, long lost) {

        static final String HEADER = "path,step,offered_per_s,samples,throughput_mean,throughput_ci95,p99_mean_ms,"
                + "p99_ci95_ms,rtt_mean_ms,rtt_mean_ci95_ms,sent,lost";

        String csv() {
            return String.format(Locale.ROOT, "%s,%d,%.1f,%d,%.2f,%.2f,%.3f,%.3f,%.3f,%.3f,%d,%d", path, step,
                    offeredPerSecond, throughput.n(), throughput.mean(), throughput.ci95(), p99Ms.mean(), p99Ms.ci95(),
                    meanMs.mean(), meanMs.ci95(), sent, lost);
        }

        static StepRow parse(String line) {
            String[] f = line.split(",");
            int n = Integer.parseInt(f[3]);
            return new StepRow(f[0], Integer.parseInt(f[1]), Double.parseDouble(f[2]),
                    new Summary(n, Double.parseDouble(f[4]), Double.NaN, Double.parseDouble(f[5])),
                    new Summary(n, Double.parseDouble(f[6]), Double.NaN, Double.parseDouble(f[7])),
                    new Summary(n, Double.parseDouble(f[8]), Double.NaN, Double.parseDouble(f[9])),
                    Long.parseLong(f[10]), Long.parseLong(f[11]));
        }

        /** Past saturation: p99 above the limit, or a message lost. */
        boolean saturated(double p99LimitMs) {
            return p99Ms.mean() > p99LimitMs || lost > 0;
        }

        String resultLine() {
            return String.format(Locale.ROOT, "RESULT step=%d path=%s offered_per_s=%.0f throughput_per_s=%.1f "
                            + "throughput_ci95=%.1f rtt_p99_ms=%.2f rtt_p99_ci95_ms=%.2f rtt_mean_ms=%.2f lost=%d",
                    step, path, offeredPerSecond, throughput.mean(), throughput.ci95(), p99Ms.mean(), p99Ms.ci95(),
                    meanMs.mean(), lost);
        }
    }

    void addRun(RunRow row, RoundTrips trips, List<ProcessSampler.Sample> cpu) throws IOException {
        append(dir.resolve("runs.csv"), RunRow.HEADER, row.csv());
        String name = row.config() + "-" + row.path();
        try (PrintStream log = new PrintStream(Files.newOutputStream(dir.resolve("rtt-" + name + ".hlog")), true,
                StandardCharsets.UTF_8)) {
            HistogramLogWriter writer = new HistogramLogWriter(log);
            writer.outputLogFormatVersion();
            writer.outputLegend();
            writer.outputIntervalHistogram(trips.total());
        }
        List<String> seq = new ArrayList<>(List.of("seq,rtt_mean_ms"));
        double[] means = trips.meanMsBySeq();
        for (int i = 0; i < means.length; i++) {
            seq.add(String.format(Locale.ROOT, "%d,%.3f", i, means[i]));
        }
        Files.write(dir.resolve("seq-" + name + ".csv"), seq, StandardCharsets.UTF_8);
        writeCpu(dir.resolve("cpu-" + name + ".csv"), cpu);
    }

    void addStep(StepRow row) throws IOException {
        append(dir.resolve("stepped.csv"), StepRow.HEADER, row.csv());
    }

    /**
     * A level's one-second samples in the order taken ({@code throughput, p99, mean, epoch ms at the end} each), to
     * tell a p99 that is high throughout from one that a few stalled seconds pull up, and to line those seconds up
     * with the checkpoints, collections and logs of the stack.
     */
    static final String STEP_SAMPLES_HEADER =
            "path,step,offered_per_s,second,ended_at_ms,throughput_per_s,rtt_p99_ms,rtt_mean_ms";

    void addStepSamples(StepRow row, List<double[]> samples) throws IOException {
        for (int i = 0; i < samples.size(); i++) {
            double[] s = samples.get(i);
            append(dir.resolve("stepped-samples.csv"), STEP_SAMPLES_HEADER,
                    String.format(Locale.ROOT, "%s,%d,%.0f,%d,%d,%.0f,%.3f,%.3f", row.path(), row.step(),
                            row.offeredPerSecond(), i + 1, (long) s[3], s[0], s[1], s[2]));
        }
    }

    void writeCpu(Path file, List<ProcessSampler.Sample> cpu) throws IOException {
        List<String> lines = new ArrayList<>(List.of("seconds,component,cpu_percent,rss_mb"));
        cpu.forEach(s -> lines.add(String.format(Locale.ROOT, "%.1f,%s,%.1f,%.1f", s.seconds(), s.component(),
                s.cpuPercent(), s.rssMb())));
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    List<RunRow> runs() throws IOException {
        return rows("runs.csv").stream().map(RunRow::parse).toList();
    }

    /** The MTD scenarios' rows (Figures 16 and 17), appended by each {@code perf mtd} run. */
    Path mtdCsv() {
        return dir.resolve("mtd.csv");
    }

    List<MtdReport.Row> mtd() throws IOException {
        return Files.exists(mtdCsv()) ? MtdReport.readCsv(mtdCsv()) : List.of();
    }

    List<StepRow> steps() throws IOException {
        return rows("stepped.csv").stream().map(StepRow::parse).toList();
    }

    Histogram rtt(RunRow run) throws IOException {
        Path file = dir.resolve("rtt-" + run.config() + "-" + run.path() + ".hlog");
        Histogram all = new Histogram(3);
        if (Files.exists(file)) {
            HistogramLogReader reader = new HistogramLogReader(file.toFile());
            for (Histogram h; (h = (Histogram) reader.nextIntervalHistogram()) != null; ) {
                all.add(h);
            }
        }
        return all;
    }

    double[] meanBySeq(RunRow run) throws IOException {
        return rows("seq-" + run.config() + "-" + run.path() + ".csv").stream()
                .mapToDouble(l -> Double.parseDouble(l.split(",")[1])).toArray();
    }

    List<ProcessSampler.Sample> cpu(String name) throws IOException {
        return rows("cpu-" + name + ".csv").stream().map(l -> l.split(","))
                .map(f -> new ProcessSampler.Sample(Double.parseDouble(f[0]), f[1], Double.parseDouble(f[2]),
                        Double.parseDouble(f[3]))).toList();
    }

    /** A file's lines after its header; none if it does not exist. */
    private List<String> rows(String file) throws IOException {
        Path path = dir.resolve(file);
        if (!Files.exists(path)) {
            return List.of();
        }
        return Files.readAllLines(path, StandardCharsets.UTF_8).stream().skip(1).filter(l -> !l.isBlank()).toList();
    }

    private static void append(Path file, String header, String line) throws IOException {
        List<String> lines = new ArrayList<>();
        if (!Files.exists(file)) {
            lines.add(header);
        }
        lines.add(line);
        Files.write(file, lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
