package io.ckc.perf;

import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;

/**
 * {@code perf report DIR}: the tables of a results folder in the paper's layouts (Figure 4, Figure
 * 8's RTT bands, Figures 16 and 17 of the MTD scenarios, the stepped run), every CKC figure beside the bare-Kafka baseline and as a ratio to
 * it, CPU and memory per process; printed, saved as {@code tables.txt} and CSV, and drawn in one
 * self-contained {@code report.html}.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Tables, CSV and an HTML report from a results folder.")
final class ReportCommand implements Callable<Integer> {

    /** How a line the report prints about a file it changed outside the results folder begins. */
    static final String UPDATED = "updated: ";

    /** p99 RTT above which a step counts as saturated (the load-testing method), ms. */
    static final double SATURATION_P99_MS = 100;

    @Parameters(index = "0", description = "Results folder")
    Path dir;

    @Option(names = "--readme", description = "A README whose cost-per-round-trip section gets this folder's table, if "
            + "it measured the paths ckc and kafka at a fixed load (perf mqtt)")
    Path readme;

    @Option(names = "--command", description = "The command line that made the folder, for the table's caption")
    String command;

    PrintStream out = System.out;

    /** Baselines first, then configurations by number (runs go in the order that restarts the stack least). */
    static final java.util.Comparator<Results.RunRow> RUN_ORDER = java.util.Comparator
            .comparing((Results.RunRow r) -> r.throughCkc())
            .thenComparingInt(r -> r.config().matches("\\d+") ? Integer.parseInt(r.config()) : r.nodes())
            .thenComparing(Results.RunRow::config);

    @Override
    public Integer call() throws Exception {
        Results results = new Results(dir);
        write(results, out);
        java.util.Optional<String> cost = CostTable.markdown(results, command);
        if (cost.isPresent()) {
            Files.writeString(dir.resolve(CostTable.FILE), cost.get(), StandardCharsets.UTF_8);
            if (readme != null && CostTable.comparesCkcWithTheEcho(results)) {
                Files.writeString(readme, CostTable.splice(Files.readString(readme, StandardCharsets.UTF_8), cost.get()),
                        StandardCharsets.UTF_8);
                out.println(UPDATED + readme + ": the cost per round trip is now this run's");
            } else if (readme != null) {
                out.println(UPDATED + "none: " + readme + " keeps its cost per round trip (this run did not measure both ckc "
                        + "and kafka)");
            }
        }
        return 0;
    }

    /**
     * Prints the tables, and writes tables.txt, report.html and the CSVs of what the folder holds:
     * figure4.csv, figure8.csv, figure16.csv, figure17.csv, cpu.csv.
     */
    static void write(Results results, PrintStream terminal) throws IOException {
        List<Results.RunRow> runs = results.runs().stream().sorted(RUN_ORDER).toList();
        List<Results.StepRow> steps = results.steps();
        List<MtdReport.Row> mtd = results.mtd().stream().sorted(java.util.Comparator.comparing(MtdReport.Row::config))
                .toList();
        List<String> overloaded = overloadedPaths(results);
        List<String> measured = measured(runs, mtd, steps);
        overloaded.forEach(path -> measured.add("overload-" + path));
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        try (PrintStream tables = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            if (!runs.isEmpty()) {
                figure4(tables, results, runs);
                figure8(tables, results, runs);
            }
            if (!mtd.isEmpty()) {
                MtdReport.printFigure16(tables, mtd, runs);
                MtdReport.printFigure17(tables, mtd);
            }
            if (!measured.isEmpty()) {
                cpu(tables, results, measured);
            }
            if (!steps.isEmpty()) {
                stepped(tables, steps);
            }
            if (!overloaded.isEmpty()) {
                tables.println();
                tables.println("Overload: saturation load, a multiple of it, then half of it (perf overload)");
                overloadResults(results).forEach(tables::println);
            }
        }
        String printed = text.toString(StandardCharsets.UTF_8);
        terminal.print(printed);
        Files.writeString(results.dir().resolve("tables.txt"), printed);
        writeCsvs(results, runs, mtd, measured);
        Files.writeString(results.dir().resolve("report.html"), Html.page(results, runs, mtd, measured, steps, overloaded));
        terminal.println("Report: " + results.dir().resolve("report.html"));
    }

    /**
     * The runs, MTD configurations and stepped paths with CPU samples, as {@code config-path}: the
     * names of their cpu files.
     */
    private static List<String> measured(List<Results.RunRow> runs, List<MtdReport.Row> mtd,
                                         List<Results.StepRow> steps) {
        List<String> names = new ArrayList<>();
        runs.forEach(r -> names.add(r.config() + "-" + r.path()));
        mtd.forEach(r -> names.add(r.config() + "-" + Results.CKC));
        steps.stream().map(Results.StepRow::path).distinct().forEach(path -> names.add("stepped-" + path));
        return names;
    }

    /** The paths with an overload timeline in the folder. */
    private static List<String> overloadedPaths(Results results) {
        return List.of(Results.CKC, Results.CKC_IN_JOB, Results.MQTT, Results.MOSQUITTO, Results.KAFKA).stream()
                .filter(path -> Files.exists(results.dir().resolve("overload-" + path + ".csv"))).toList();
    }

    private static List<String> overloadResults(Results results) throws IOException {
        Path file = results.dir().resolve("overload.txt");
        return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    }

    /** The runs one configuration's charts draw: its own, and beside each CKC run the baseline it is compared with. */
    static List<Results.RunRow> drawnWith(String config, List<Results.RunRow> all) {
        List<Results.RunRow> drawn = new ArrayList<>();
        for (Results.RunRow r : all) {
            if (r.config().equals(config) && !drawn.contains(r)) {
                drawn.add(r);
                if (r.throughCkc()) {
                    baselineOf(r, all).filter(b -> !drawn.contains(b)).ifPresent(drawn::add);
                }
            }
        }
        return drawn;
    }

    /** The configurations that get charts: every one, except a baseline already drawn beside a CKC run. */
    static List<String> chartedConfigs(List<Results.RunRow> all) {
        List<String> beside = all.stream().filter(r -> r.throughCkc())
                .flatMap(r -> baselineOf(r, all).stream()).map(Results.RunRow::config).toList();
        return Html.configs(all).stream().filter(c -> !beside.contains(c)).toList();
    }

    /** The baseline run a CKC run is compared with: same nodes, messages and rate. */
    static Optional<Results.RunRow> baselineOf(Results.RunRow run, List<Results.RunRow> all) {
        return baselineOf(run.nodes(), run.messages(), run.ratePerMinute(), all);
    }

    /** The baseline run with these nodes, messages per node and rate, if one was measured. */
    static Optional<Results.RunRow> baselineOf(int nodes, int messages, double ratePerMinute,
                                               List<Results.RunRow> all) {
        return all.stream().filter(r -> r.path().equals(Results.KAFKA) && r.nodes() == nodes
                && r.messages() == messages && r.ratePerMinute() == ratePerMinute).findFirst();
    }

    static double ratio(double value, double base) {
        return base > 0 ? value / base : Double.NaN;
    }

    private static void figure4(PrintStream out, Results results, List<Results.RunRow> runs) {
        out.println();
        out.println("Figure 4 layout: round trip MN -> gateway -> Kafka -> echo app -> delivery job -> gateway -> MN (ms);");
        out.println("x kafka = the figure divided by the bare-Kafka echo's with the same nodes and load, in this run");
        out.printf("%-8s %-6s %6s %4s %3s %9s %9s %9s %9s %8s %9s %8s %8s %8s%n", "ID", "path", "MNs", "APP", "GW",
                "Mean RTT", "Std dev", "p50", "p99", "TE", "msg/s", "mean x", "p99 x", "msg/s x");
        for (Results.RunRow r : runs) {
            Optional<Results.RunRow> base = r.throughCkc() ? baselineOf(r, runs) : Optional.empty();
            out.printf(Locale.ROOT, "%-8s %-6s %6d %4s %3s %9.2f %9.2f %9.2f %9.2f %7.2f%% %9.1f %8s %8s %8s%n",
                    r.config(), r.path(), r.nodes(), r.throughCkc() ? r.appParallelism() : "-",
                    r.throughCkc() ? r.gateways() : "-", r.meanMs(), r.sdMs(), r.p50Ms(), r.p99Ms(),
                    r.te(), r.throughput(), times(base.map(b -> ratio(r.meanMs(), b.meanMs()))),
                    times(base.map(b -> ratio(r.p99Ms(), b.p99Ms()))),
                    times(base.map(b -> ratio(r.throughput(), b.throughput()))));
        }
    }

    private static void figure8(PrintStream out, Results results, List<Results.RunRow> runs) throws IOException {
        out.println();
        out.println("Figure 8 layout: share of round trips by RTT band (ms)");
        out.printf("%-8s", "RTT");
        runs.forEach(r -> out.printf("%13s", r.config() + "/" + r.path()));
        out.println();
        List<double[]> bands = new ArrayList<>();
        for (Results.RunRow r : runs) {
            bands.add(Report.bands(results.rtt(r), Report.FIGURE8_BANDS_MS));
        }
        List<String> labels = Report.bandLabels(Report.FIGURE8_BANDS_MS);
        for (int band = 0; band < labels.size(); band++) {
            out.printf("%-8s", labels.get(band));
            for (double[] b : bands) {
                out.printf(Locale.ROOT, "%12.2f%%", b[band]);
            }
            out.println();
        }
    }

    private static void cpu(PrintStream out, Results results, List<String> measured) throws IOException {
        out.println();
        out.println("CPU (% of one core: mean / peak) and peak memory (RSS, MB) per process during each run");
        for (String name : measured) {
            StringBuilder line = new StringBuilder(String.format("%-14s", name));
            for (ProcessSampler.Usage u : ProcessSampler.usage(results.cpu(name))) {
                line.append(String.format(Locale.ROOT, "  %s %.0f/%.0f%% %.0fMB", u.component(), u.meanCpuPercent(),
                        u.maxCpuPercent(), u.maxRssMb()));
            }
            out.println(line);
        }
    }

    private static void stepped(PrintStream out, List<Results.StepRow> steps) {
        out.println();
        out.println("Stepped load: 95% confidence intervals over the samples of each step; saturation: p99 RTT > "
                + (int) SATURATION_P99_MS + " ms or a message lost");
        out.printf("%-5s %9s | %-25s %-25s %6s | %-25s %-25s %6s | %8s %8s%n", "step", "offered/s", "ckc msg/s",
                "ckc p99 ms", "lost", "kafka msg/s", "kafka p99 ms", "lost", "msg/s x", "p99 x");
        Map<Integer, Results.StepRow> ckc = byStep(steps, Results.CKC);
        Map<Integer, Results.StepRow> kafka = byStep(steps, Results.KAFKA);
        for (int step : ckc.keySet().isEmpty() ? kafka.keySet() : ckc.keySet()) {
            Results.StepRow c = ckc.get(step);
            Results.StepRow k = kafka.get(step);
            Results.StepRow any = c != null ? c : k;
            out.printf(Locale.ROOT, "%-5d %9.0f | %-25s %-25s %6s | %-25s %-25s %6s | %8s %8s%n", step,
                    any.offeredPerSecond(), interval(c == null ? null : c.throughput()),
                    interval(c == null ? null : c.p99Ms()), c == null ? "-" : c.lost(),
                    interval(k == null ? null : k.throughput()), interval(k == null ? null : k.p99Ms()),
                    k == null ? "-" : k.lost(),
                    times(c == null || k == null ? Optional.empty()
                            : Optional.of(ratio(c.throughput().mean(), k.throughput().mean()))),
                    times(c == null || k == null ? Optional.empty()
                            : Optional.of(ratio(c.p99Ms().mean(), k.p99Ms().mean()))));
        }
        for (Results.StepRow s : steps) {
            if (!s.path().equals(Results.CKC) && !s.path().equals(Results.KAFKA)) {
                out.printf(Locale.ROOT, "%-9s step %d %9.0f offered/s | %-25s msg/s %-25s p99 ms | lost %d%n",
                        s.path(), s.step(), s.offeredPerSecond(), interval(s.throughput()), interval(s.p99Ms()),
                        s.lost());
            }
        }
        for (String path : steppedPaths(steps)) {
            Optional<Results.StepRow> saturated = saturation(steps, path);
            out.println(saturated.map(s -> String.format(Locale.ROOT,
                            "%s saturates at step %d: %.0f msg/s offered (p99 %.1f ms, lost %d)", path, s.step(),
                            s.offeredPerSecond(), s.p99Ms().mean(), s.lost()))
                    .orElse(path + ": no saturation within the steps run"));
        }
    }

    /** The paths a stepped run loaded, in the order they ran. */
    static List<String> steppedPaths(List<Results.StepRow> steps) {
        return steps.stream().map(Results.StepRow::path).distinct().toList();
    }

    /** The first step past saturation on a path. */
    static Optional<Results.StepRow> saturation(List<Results.StepRow> steps, String path) {
        return steps.stream().filter(s -> s.path().equals(path) && s.saturated(SATURATION_P99_MS)).findFirst();
    }

    static Map<Integer, Results.StepRow> byStep(List<Results.StepRow> steps, String path) {
        Map<Integer, Results.StepRow> rows = new LinkedHashMap<>();
        steps.stream().filter(s -> s.path().equals(path)).forEach(s -> rows.put(s.step(), s));
        return rows;
    }

    private static void writeCsvs(Results results, List<Results.RunRow> runs, List<MtdReport.Row> mtd,
                                  List<String> measured) throws IOException {
        List<String> figure4 = new ArrayList<>(List.of("config,path,nodes,app_parallelism,gateways,rtt_mean_ms,rtt_sd_ms,"
                + "rtt_p50_ms,rtt_p99_ms,te,throughput_per_s,rtt_mean_x_kafka,rtt_p99_x_kafka,throughput_x_kafka"));
        List<String> figure8 = new ArrayList<>(List.of("config,path," + String.join(",",
                Report.bandLabels(Report.FIGURE8_BANDS_MS).stream().map(l -> "band " + l).toList())));
        for (Results.RunRow r : runs) {
            Optional<Results.RunRow> base = r.throughCkc() ? baselineOf(r, runs) : Optional.empty();
            figure4.add(String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.4f,%.2f,%.4f,%.4f,%.4f",
                    r.config(), r.path(), r.nodes(), r.appParallelism(), r.gateways(), r.meanMs(), r.sdMs(), r.p50Ms(),
                    r.p99Ms(), r.te(), r.throughput(), base.map(b -> ratio(r.meanMs(), b.meanMs())).orElse(Double.NaN),
                    base.map(b -> ratio(r.p99Ms(), b.p99Ms())).orElse(Double.NaN),
                    base.map(b -> ratio(r.throughput(), b.throughput())).orElse(Double.NaN)));
            StringBuilder line = new StringBuilder(r.config() + "," + r.path());
            for (double share : Report.bands(results.rtt(r), Report.FIGURE8_BANDS_MS)) {
                line.append(String.format(Locale.ROOT, ",%.4f", share));
            }
            figure8.add(line.toString());
        }
        List<String> cpu = new ArrayList<>(List.of("run,component,cpu_mean_percent,cpu_max_percent,rss_max_mb"));
        for (String name : measured) {
            for (ProcessSampler.Usage u : ProcessSampler.usage(results.cpu(name))) {
                cpu.add(String.format(Locale.ROOT, "%s,%s,%.1f,%.1f,%.1f", name, u.component(), u.meanCpuPercent(),
                        u.maxCpuPercent(), u.maxRssMb()));
            }
        }
        if (!mtd.isEmpty()) {
            List<String> figure16 = new ArrayList<>(List.of("config,te,te_desc,desc_full_share,rtt_fixed_mean_ms,"
                    + "rtt_fixed_sd_ms,rtt_desc_mean_ms,rtt_desc_sd_ms,expired,dropped,expired_delivered,rtt_fixed_x_kafka"));
            List<String> figure17 = new ArrayList<>(List.of("config," + String.join(",",
                    MtdReport.bandLabels().stream().map(l -> "band " + l).toList())));
            for (MtdReport.Row r : mtd) {
                figure16.add(String.format(Locale.ROOT, "%s,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f,%.3f,%d,%d,%d,%.4f", r.config(),
                        r.te(), r.teDesc(), r.descFullShare(), r.rttFixedMean(), r.rttFixedSd(), r.rttDescMean(),
                        r.rttDescSd(), r.expired(), r.dropped(), r.expiredDelivered(), r.rttFixedTimesKafka(runs)));
                StringBuilder line = new StringBuilder(r.config());
                for (double share : r.bands()) {
                    line.append(String.format(Locale.ROOT, ",%.4f", share));
                }
                figure17.add(line.toString());
            }
            Files.write(results.dir().resolve("figure16.csv"), figure16, StandardCharsets.UTF_8);
            Files.write(results.dir().resolve("figure17.csv"), figure17, StandardCharsets.UTF_8);
        }
        Files.write(results.dir().resolve("figure4.csv"), figure4, StandardCharsets.UTF_8);
        Files.write(results.dir().resolve("figure8.csv"), figure8, StandardCharsets.UTF_8);
        Files.write(results.dir().resolve("cpu.csv"), cpu, StandardCharsets.UTF_8);
    }

    private static String interval(Summary s) {
        if (s == null) {
            return "-";
        }
        return Double.isNaN(s.ci95()) ? String.format(Locale.ROOT, "%.1f", s.mean())
                : String.format(Locale.ROOT, "%.1f ± %.1f", s.mean(), s.ci95());
    }

    private static String times(Optional<Double> ratio) {
        return ratio.filter(r -> !Double.isNaN(r)).map(r -> String.format(Locale.ROOT, "%.2f", r)).orElse("-");
    }

    /** The HTML page: tables and charts. */
    static final class Html {

        private Html() {
        }

        static String page(Results results, List<Results.RunRow> runs, List<MtdReport.Row> mtd, List<String> measured,
                           List<Results.StepRow> steps, List<String> overloaded) throws IOException {
            StringBuilder html = new StringBuilder("""
                    <!DOCTYPE html><html><head><meta charset="utf-8"><title>CKC performance report</title>
                    <style>body{font-family:sans-serif;max-width:1400px;margin:20px auto;color:#222}
                    table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
                    th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:12px}
                    .note{color:#666;font-size:90%}pre{white-space:pre-wrap}</style></head><body>
                    """);
            html.append("<h1>CKC on Flink: performance report</h1>");
            html.append("<p class=\"note\">").append(Charts.escape(machine())).append(" — results folder ")
                    .append(Charts.escape(results.dir().getFileName().toString()))
                    .append(". Every CKC figure is also shown as a ratio (×) to the bare-Kafka echo measured in the same run ")
                    .append("(messages straight to a Kafka topic, a plain consumer answers, no gateway, no Flink).</p>");
            if (!runs.isEmpty()) {
                html.append("<h2>Configurations (Figure 4 layout)</h2><table><tr><th>ID</th><th>path</th><th>MNs</th>"
                        + "<th>APP</th><th>GW</th><th>sent</th><th>delivered</th><th>lost</th><th>TE</th><th>mean RTT ms</th>"
                        + "<th>sd</th><th>p50</th><th>p99</th><th>max</th><th>msg/s</th><th>mean ×kafka</th><th>p99 ×kafka</th>"
                        + "<th>msg/s ×kafka</th></tr>");
                for (Results.RunRow r : runs) {
                    Optional<Results.RunRow> base = r.throughCkc() ? baselineOf(r, runs) : Optional.empty();
                    html.append(String.format(Locale.ROOT,
                            "<tr><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td>"
                                    + "<td>%.2f%%</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.1f</td>"
                                    + "<td>%s</td><td>%s</td><td>%s</td></tr>",
                            r.config(), r.path(), r.nodes(), r.throughCkc() ? r.appParallelism() : "-",
                            r.throughCkc() ? r.gateways() : "-", r.sent(), r.delivered(), r.lost(), r.te(),
                            r.meanMs(), r.sdMs(), r.p50Ms(), r.p99Ms(), r.maxMs(), r.throughput(),
                            times(base.map(b -> ratio(r.meanMs(), b.meanMs()))),
                            times(base.map(b -> ratio(r.p99Ms(), b.p99Ms()))),
                            times(base.map(b -> ratio(r.throughput(), b.throughput())))));
                }
                html.append("</table>");
                bandsTable(html, results, runs);
                html.append("<h2>RTT distribution per configuration, beside its baseline</h2><div class=\"charts\">");
                for (String config : chartedConfigs(runs)) {
                    html.append(histogram(results, config, drawnWith(config, runs)));
                }
                html.append("</div><h2>Mean RTT by message sequence number (Figures 9–14), beside the baseline</h2><div class=\"charts\">");
                for (String config : chartedConfigs(runs)) {
                    html.append(bySeq(results, config, drawnWith(config, runs)));
                }
                html.append("</div>");
            }
            if (!mtd.isEmpty()) {
                mtdSection(html, mtd, runs);
            }
            if (!measured.isEmpty()) {
                html.append("<h2>CPU per component</h2><div class=\"charts\">");
                for (String name : measured) {
                    html.append(cpuChart(results, name));
                }
                html.append("</div>");
            }
            if (Files.exists(results.dir().resolve(MqttCommand.FIXED_CSV))) {
                mqttSection(html, results);
            }
            if (!steps.isEmpty()) {
                steppedSection(html, steps);
            }
            if (!overloaded.isEmpty()) {
                overloadSection(html, results, overloaded);
            }
            if (Files.exists(results.dir().resolve("rescale.csv"))) {
                timelineSection(html, results, "rescale", "Rescaling under load", RESCALE_NOTE, "while rescaling",
                        Double.NaN);
            }
            if (Files.exists(results.dir().resolve("faults.csv"))) {
                timelineSection(html, results, "faults", "Faults under load", FAULTS_NOTE, "under faults",
                        FaultsCommand.P99_LIMIT_MS);
            }
            if (Files.exists(results.dir().resolve("soak.csv"))) {
                soakSection(html, results);
            }
            return html.append("</body></html>\n").toString();
        }

        private static List<String> configs(List<Results.RunRow> runs) {
            return runs.stream().map(Results.RunRow::config).distinct().toList();
        }

        private static void bandsTable(StringBuilder html, Results results, List<Results.RunRow> runs)
                throws IOException {
            List<String> labels = Report.bandLabels(Report.FIGURE8_BANDS_MS);
            html.append("<h2>Share of round trips by RTT band, ms (Figure 8 layout)</h2><table><tr><th>RTT</th>");
            List<double[]> bands = new ArrayList<>();
            for (Results.RunRow r : runs) {
                html.append("<th>").append(Charts.escape(r.config() + "/" + r.path())).append("</th>");
                bands.add(Report.bands(results.rtt(r), Report.FIGURE8_BANDS_MS));
            }
            html.append("</tr>");
            for (int band = 0; band < labels.size(); band++) {
                html.append("<tr><td>").append(Charts.escape(labels.get(band))).append("</td>");
                for (double[] b : bands) {
                    html.append(String.format(Locale.ROOT, "<td>%.2f%%</td>", b[band]));
                }
                html.append("</tr>");
            }
            html.append("</table>");
        }

        /** Bins per tenfold of RTT in the distribution charts. */
        private static final int BINS_PER_DECADE = 10;

        /**
         * Share of round trips per RTT bin, bins of equal width on a log axis from 0.1 ms to the
         * slowest round trip: the whole tail is drawn, however long. One line per path.
         */
        private static String histogram(Results results, String config, List<Results.RunRow> runs) throws IOException {
            List<Charts.Series> series = new ArrayList<>();
            for (Results.RunRow r : runs) {
                Histogram h = results.rtt(r);
                long total = Math.max(1, h.getTotalCount());
                double maxMs = Math.max(1, h.getMaxValue() / 1000.0);
                int bins = (int) Math.ceil(Math.log10(maxMs / 0.1) * BINS_PER_DECADE) + 1;
                double[] x = new double[bins];
                double[] y = new double[bins];
                for (int i = 0; i < bins; i++) {
                    double fromMs = 0.1 * Math.pow(10, (double) i / BINS_PER_DECADE);
                    double toMs = 0.1 * Math.pow(10, (double) (i + 1) / BINS_PER_DECADE);
                    x[i] = Math.sqrt(fromMs * toMs);
                    y[i] = 100.0 * h.getCountBetweenValues((long) (fromMs * 1000), (long) (toMs * 1000) - 1) / total;
                }
                series.add(Charts.Series.of(r.path(), x, y));
            }
            return Charts.line("Configuration " + config + ": RTT distribution",
                    "RTT (ms, log scale; " + BINS_PER_DECADE + " bins per tenfold)", "% of round trips per bin",
                    Charts.Scale.LOG_X, series);
        }

        private static String bySeq(Results results, String config, List<Results.RunRow> runs) throws IOException {
            List<Charts.Series> series = new ArrayList<>();
            for (Results.RunRow r : runs) {
                double[] y = results.meanBySeq(r);
                series.add(Charts.Series.of(r.path(), IntStream.range(0, y.length).mapToDouble(i -> i).toArray(), y));
            }
            return Charts.line("Configuration " + config + ": mean RTT by sequence number",
                    "message sequence number (n-th message of each node)", "mean RTT (ms, log scale)", Charts.Scale.LOG_Y,
                    series);
        }

        /** The MTD scenarios: Figure 16's table, Figure 17's bands as a table and a chart. */
        private static void mtdSection(StringBuilder html, List<MtdReport.Row> mtd, List<Results.RunRow> runs) {
            html.append("<h2>MTD scenarios (Figure 16 layout)</h2><p class=\"note\">Round trip core → MN → core, ms. "
                    + "TE counts the messages that did not expire; Desc: the nodes that disconnect; 100% TE Desc: the "
                    + "share of them that got every message; exp.dlv: messages delivered after their TTL (must be 0); "
                    + "×kafka: RTT Fixed over the bare-Kafka echo's mean with the same nodes and load.</p>"
                    + "<table><tr><th>ID</th><th>MNs</th><th>sent</th><th>TE</th><th>TE Desc</th><th>100% TE Desc</th>"
                    + "<th>RTT Fixed</th><th>SD Fixed</th><th>RTT Desc</th><th>SD Desc</th><th>expired</th><th>dropped</th>"
                    + "<th>exp.dlv</th><th>RTT Fixed ×kafka</th></tr>");
            for (MtdReport.Row r : mtd) {
                html.append(String.format(Locale.ROOT, "<tr><td>%s</td><td>%d</td><td>%d</td><td>%.2f%%</td><td>%s</td>"
                                + "<td>%s</td><td>%.2f</td><td>%.2f</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td>"
                                + "<td>%s</td></tr>", r.config(), r.nodes(), r.sent(), r.te(), orDash(r.teDesc(), "%.2f%%"),
                        orDash(r.descFullShare(), "%.2f%%"), r.rttFixedMean(), r.rttFixedSd(), orDash(r.rttDescMean(), "%.2f"),
                        orDash(r.rttDescSd(), "%.2f"), r.expired(), r.dropped(), r.expiredDelivered(),
                        orDash(r.rttFixedTimesKafka(runs), "%.2f")));
            }
            List<String> labels = MtdReport.bandLabels();
            html.append("</table><h2>Share of round trips by RTT band, ms (Figure 17 layout)</h2><table><tr><th>RTT</th>");
            mtd.forEach(r -> html.append("<th>").append(Charts.escape(r.config())).append("</th>"));
            html.append("</tr>");
            for (int band = 0; band < labels.size(); band++) {
                html.append("<tr><td>").append(Charts.escape(labels.get(band))).append("</td>");
                for (MtdReport.Row r : mtd) {
                    html.append(String.format(Locale.ROOT, "<td>%.2f%%</td>", r.bands()[band]));
                }
                html.append("</tr>");
            }
            html.append("</table><div class=\"charts\">");
            html.append(Charts.bars("Figure 17: round trips by RTT band", "% of round trips", labels,
                    mtd.stream().map(r -> new Charts.Bars(r.config(), r.bands())).toList(), false));
            html.append("</div>");
        }

        private static String orDash(double value, String format) {
            return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, format, value);
        }

        private static String cpuChart(Results results, String name) throws IOException {
            List<ProcessSampler.Usage> usage = ProcessSampler.usage(results.cpu(name));
            return Charts.bars(name + ": CPU per process", "CPU (% of one core)",
                    usage.stream().map(ProcessSampler.Usage::component).toList(),
                    List.of(new Charts.Bars("mean", usage.stream().mapToDouble(ProcessSampler.Usage::meanCpuPercent).toArray()),
                            new Charts.Bars("peak", usage.stream().mapToDouble(ProcessSampler.Usage::maxCpuPercent).toArray())),
                    false);
        }

        /** perf mqtt: each path's RTT at the fixed load with the CPU of each process, and the idle connections. */
        private static void mqttSection(StringBuilder html, Results results) throws IOException {
            List<String[]> rows = Files.readAllLines(results.dir().resolve(MqttCommand.FIXED_CSV)).stream().skip(1)
                    .map(l -> l.split(",")).toList();
            html.append("<h2>The paths at a fixed load</h2><p class=\"note\">mqtt: MQTT 5 "
                    + "devices on CKC's gateway, through Kafka and the echo job; ckc: CKC's UDP nodes, the same way; "
                    + "ckc-in-job: CKC's UDP nodes answered by the echo inside the delivery job (one broker pass less); "
                    + "kafka: the bare-Kafka echo; mosquitto: MQTT 5 devices on a Mosquitto broker, an MQTT echo client "
                    + "answering. The same fixed load on each path present, one after the other, each after a warm-up; "
                    + "CPU in % of one core.</p>");
            html.append("<table><tr><th>path</th><th>offered/s</th><th>devices</th><th>sent</th><th>delivered</th>"
                    + "<th>p50 ms</th><th>p99 ms</th><th>mean ms</th><th>CPU per process</th></tr>");
            Map<String, List<String[]>> byPath = new java.util.LinkedHashMap<>();
            rows.forEach(r -> byPath.computeIfAbsent(r[0], k -> new ArrayList<>()).add(r));
            byPath.forEach((path, processes) -> {
                String[] r = processes.get(0);
                String cpu = processes.stream().map(p -> p[8] + " " + p[9] + "%")
                        .collect(java.util.stream.Collectors.joining(", "));
                html.append("<tr><td>").append(Charts.escape(path)).append("</td>");
                for (int i = 1; i <= 7; i++) {
                    html.append("<td>").append(Charts.escape(r[i])).append("</td>");
                }
                html.append("<td>").append(Charts.escape(cpu)).append("</td></tr>");
            });
            html.append("</table>");
            List<String> paths = List.copyOf(byPath.keySet());
            html.append("<div class=\"charts\">").append(Charts.bars("RTT at the fixed load", "RTT (ms, log scale)",
                    paths, List.of(new Charts.Bars("p50", paths.stream().mapToDouble(p -> Double.parseDouble(byPath.get(p).get(0)[5])).toArray()),
                            new Charts.Bars("p99", paths.stream().mapToDouble(p -> Double.parseDouble(byPath.get(p).get(0)[6])).toArray())),
                    true)).append("</div>");
            Path idle = results.dir().resolve(MqttCommand.IDLE_CSV);
            if (Files.exists(idle)) {
                html.append("<h3>Idle connections one server process holds</h3><table><tr><th>server</th>"
                        + "<th>connections</th><th>RSS before MB</th><th>RSS after MB</th><th>RSS per connection KB</th>"
                        + "<th>live heap per connection KB</th></tr>");
                for (String line : Files.readAllLines(idle).stream().skip(1).toList()) {
                    html.append("<tr>");
                    for (String cell : line.split(",")) {
                        html.append("<td>").append(Charts.escape(cell)).append("</td>");
                    }
                    html.append("</tr>");
                }
                html.append("</table>");
            }
        }

        private static void steppedSection(StringBuilder html, List<Results.StepRow> steps) {
            html.append("<h2>Stepped load</h2><p class=\"note\">Each step: samples of one second after a steady state; "
                    + "mean ± 95% confidence interval. Saturation: p99 RTT above " + (int) SATURATION_P99_MS
                    + " ms or any message lost.</p>");
            for (String path : steppedPaths(steps)) {
                html.append("<p>").append(saturation(steps, path).map(s -> String.format(Locale.ROOT,
                                "<b>%s</b> saturates at %.0f msg/s offered (step %d: p99 %.1f ms, %d lost).", path,
                                s.offeredPerSecond(), s.step(), s.p99Ms().mean(), s.lost()))
                        .orElse("<b>" + path + "</b>: no saturation within the steps run.")).append("</p>");
            }
            html.append("<table><tr><th>path</th><th>step</th><th>offered/s</th><th>msg/s</th><th>±</th><th>p99 ms</th>"
                    + "<th>±</th><th>mean RTT ms</th><th>±</th><th>sent</th><th>lost</th></tr>");
            for (Results.StepRow s : steps) {
                html.append(String.format(Locale.ROOT,
                        "<tr><td>%s</td><td>%d</td><td>%.0f</td><td>%.1f</td><td>%.1f</td><td>%.2f</td><td>%.2f</td>"
                                + "<td>%.2f</td><td>%.2f</td><td>%d</td><td>%d</td></tr>",
                        s.path(), s.step(), s.offeredPerSecond(), s.throughput().mean(), s.throughput().ci95(),
                        s.p99Ms().mean(), s.p99Ms().ci95(), s.meanMs().mean(), s.meanMs().ci95(), s.sent(), s.lost()));
            }
            html.append("</table><div class=\"charts\">");
            List<Charts.Series> throughput = new ArrayList<>();
            List<Charts.Series> p99 = new ArrayList<>();
            double[] allOffered = steps.stream().mapToDouble(Results.StepRow::offeredPerSecond).distinct().sorted().toArray();
            for (String path : steppedPaths(steps)) {
                List<Results.StepRow> rows = new ArrayList<>(byStep(steps, path).values());
                if (rows.isEmpty()) {
                    continue;
                }
                double[] offered = rows.stream().mapToDouble(Results.StepRow::offeredPerSecond).toArray();
                throughput.add(Charts.Series.withCi(path, offered,
                        rows.stream().mapToDouble(s -> s.throughput().mean()).toArray(),
                        rows.stream().mapToDouble(s -> s.throughput().low()).toArray(),
                        rows.stream().mapToDouble(s -> s.throughput().high()).toArray()));
                p99.add(Charts.Series.withCi(path, offered, rows.stream().mapToDouble(s -> s.p99Ms().mean()).toArray(),
                        rows.stream().mapToDouble(s -> s.p99Ms().low()).toArray(),
                        rows.stream().mapToDouble(s -> s.p99Ms().high()).toArray()));
            }
            throughput.add(Charts.Series.reference("offered", allOffered, allOffered));
            p99.add(Charts.Series.reference("saturation limit (" + (int) SATURATION_P99_MS + " ms)", allOffered,
                    java.util.Arrays.stream(allOffered).map(o -> SATURATION_P99_MS).toArray()));
            html.append(Charts.line("Throughput against offered load (mean, dashed: 95% CI)", "offered load (msg/s)",
                    "delivered echoes (msg/s)", Charts.Scale.LINEAR, throughput));
            html.append(Charts.line("p99 RTT against offered load (mean, dashed: 95% CI)", "offered load (msg/s)",
                    "p99 RTT (ms, log scale)", Charts.Scale.LOG_Y, p99));
            html.append("</div>");
        }

        /** The overload runs: their RESULT lines, delivered throughput and p99 RTT second by second. */
        private static void overloadSection(StringBuilder html, Results results, List<String> paths) throws IOException {
            html.append("<h2>Overload</h2><p class=\"note\">Each path: the saturation load, then a multiple of it, then "
                    + "half of it, one after the other; one point per second. delivered_ratio: delivered msg/s under "
                    + "overload over delivered msg/s at saturation; recovery_ms: from the end of the overload until p99 "
                    + "stays under " + (int) SATURATION_P99_MS + " ms for " + OverloadCommand.RECOVERED_SECONDS
                    + " seconds that together deliver " + Math.round(OverloadCommand.RECOVERED_SHARE * 100)
                    + "% of the load offered in them; shed: messages the nodes gave back unsent after waiting too long for their socket's "
                    + "congestion window. Datagrams dropped: by this machine's kernel for a full socket receive buffer, "
                    + "any socket (the gateways' or the nodes').</p><pre>");
            overloadResults(results).forEach(line -> html.append(Charts.escape(line)).append('\n'));
            html.append("</pre><div class=\"charts\">");
            List<Charts.Series> delivered = new ArrayList<>();
            List<Charts.Series> p99 = new ArrayList<>();
            for (String path : paths) {
                List<OverloadCommand.Second> timeline = OverloadCommand.read(results, path);
                double[] t = timeline.stream().mapToDouble(OverloadCommand.Second::second).toArray();
                delivered.add(Charts.Series.of(path, t, timeline.stream().mapToDouble(OverloadCommand.Second::delivered).toArray()));
                p99.add(Charts.Series.of(path, t, timeline.stream().mapToDouble(OverloadCommand.Second::p99Ms).toArray()));
                if (delivered.size() == 1) {
                    delivered.add(Charts.Series.reference("offered", t,
                            timeline.stream().mapToDouble(OverloadCommand.Second::offeredPerSecond).toArray()));
                    p99.add(Charts.Series.reference("limit (" + (int) SATURATION_P99_MS + " ms)", t,
                            timeline.stream().mapToDouble(s -> SATURATION_P99_MS).toArray()));
                }
            }
            html.append(Charts.line("Delivered under overload", "time (s)", "delivered echoes (msg/s)",
                    Charts.Scale.LINEAR, delivered));
            html.append(Charts.line("p99 RTT under overload", "time (s)", "p99 RTT (ms, log scale)", Charts.Scale.LOG_Y,
                    p99));
            List<Charts.Series> windows = new ArrayList<>();
            List<Charts.Series> refusals = new ArrayList<>();
            List<Charts.Series> held = new ArrayList<>();
            for (String path : paths) {
                List<OverloadCommand.Second> timeline = OverloadCommand.read(results, path);
                // named for what they count, path after: a name that begins with the path takes the path's colour
                addSeries(windows, "nodes' sockets (" + path + ")", timeline, OverloadCommand.Second::windowFrames);
                addSeries(windows, "gateways' deliveries (" + path + ")", timeline,
                        OverloadCommand.Second::gatewayWindowFrames);
                addSeries(refusals, "messages refused as busy (" + path + ")", timeline,
                        OverloadCommand.Second::busyPerSecond);
                addSeries(refusals, "datagrams dropped, full buffers (" + path + ")", timeline,
                        OverloadCommand.Second::kernelDropsPerSecond);
                addSeries(held, "waiting for a gateway (" + path + ")", timeline, OverloadCommand.Second::heldWaiting);
                addSeries(held, "waiting for window room (" + path + ")", timeline, OverloadCommand.Second::heldQueued);
                addSeries(held, "sent, not acknowledged (" + path + ")", timeline,
                        OverloadCommand.Second::heldInFlight);
            }
            if (!windows.isEmpty()) {
                html.append(Charts.line("Congestion windows", "time (s)",
                        "frames allowed in flight, all sockets (log scale)", Charts.Scale.LOG_Y, windows));
            }
            if (!refusals.isEmpty()) {
                html.append(Charts.line("Refused by the gateways, dropped by the kernel", "time (s)",
                        "messages or datagrams per second", Charts.Scale.LINEAR, refusals));
            }
            if (!held.isEmpty()) {
                html.append(Charts.line("Messages the nodes hold", "time (s)", "messages, all nodes",
                        Charts.Scale.LINEAR, held));
            }
            html.append("</div>");
        }

        /** A series of the seconds that have a figure (not -1), if any has. */
        private static void addSeries(List<Charts.Series> to, String name, List<OverloadCommand.Second> timeline,
                                      ToLongFunction<OverloadCommand.Second> figure) {
            List<OverloadCommand.Second> kept = timeline.stream().filter(s -> figure.applyAsLong(s) >= 0).toList();
            if (!kept.isEmpty()) {
                to.add(Charts.Series.of(name, kept.stream().mapToDouble(OverloadCommand.Second::second).toArray(),
                        kept.stream().mapToDouble(figure::applyAsLong).toArray()));
            }
        }

        static final String RESCALE_NOTE = "A constant load through the echo app; every "
                + "interval one job is rescaled by savepoint (stop-with-savepoint, resubmitted at the new parallelism) "
                + "or in place (the adaptive scheduler) or blue/green (its successor from a savepoint beside it until it "
                + "caught up). Beside it, the paper's mtd_2 outbound scenario keeps MTD "
                + "buffers in flight (30% of its nodes leave and come back; last RESULT line). The first interval, "
                + "before any rescale, is the same load with no rescale. "
                + "downtime_ms: the longest run of seconds without an echo; gap_ms: from the first second the rescale "
                + "shows until p99 is back under twice its level before it (steady_p99_ms) for 3 s; p99_ms: the round "
                + "trips of the messages sent during the rescale's interval; lost, duplicates (by UDP nodes, MQTT devices "
                + "and the application) and reordered over each rescale's interval. Vertical lines: when each "
                + "./ckc rescale began (it starts a JVM first: the rescale itself shows a few seconds later).";

        static final String SOAK_NOTE = "The nominal load for the whole run; each process, consumer group and job "
                + "sampled once a sample period. A series grows when the whole confidence interval of its slope (per "
                + "hour, fitted after the warm-up, whose samples are drawn but not fitted) lies above zero. Each of the "
                + "N judged series is judged at 1 - 0.05/N, 95% for all of them together (Bonferroni; "
                + "growing_each_at_95 counts those each at 95% alone would call growing); where one sample's residual "
                + "predicts the next (lag-1 autocorrelation), the samples count as fewer independent ones (n_eff) and "
                + "the interval is wider.";

        static final String FAULTS_NOTE = "A constant load through the echo app, with the paper's mtd_2 beside it (30% "
                + "of its nodes leave and come back at another gateway; its messages have a TTL), while faults drawn from "
                + "a seed strike: kill -9 of the TaskManager, the broker stopped (SIGTERM) or killed (kill -9) and started "
                + "again, kill -9 of a gateway, a burst of nodes losing their link at once, packet loss and a rate limit "
                + "on one gateway's path. The seconds before the first fault are the baseline. recovery_ms: from the "
                + "fault (from its lift, for loss and rate limit) to the end of the first second whose echoes are within "
                + "10% of what the nodes sent in it with p99 under 100 ms; to_baseline_ms: the same with p99 under the baseline's (the "
                + "median of the per-second p99s before the first fault) where that is above 100 ms; nodes_half_back_ms, "
                + "nodes_back_ms: after a gateway kill, until half, and all, of the nodes it had (nodes_struck) had a new "
                + "session; of those, "
                + "nodes_gave_up_max_ms: until the last gave the dead gateway up (a node notices when a frame of its own goes "
                + "unanswered), nodes_reconnect_p50_ms and _max_ms: from giving up to its new session. Vertical lines: the faults.";

        /**
         * A run under a constant load with events (rescales, faults) marked: its RESULT lines; delivered echoes and
         * p99 RTT second by second beside the load sent, each event a marker numbered as in the lines, with the p99
         * before the first event and, where given, the p99 a recovery must get under.
         */
        private static void timelineSection(StringBuilder html, Results results, String name, String title, String note,
                                            String during, double recoveredP99Ms) throws IOException {
            html.append("<h2>").append(Charts.escape(title)).append("</h2><p class=\"note\">")
                    .append(Charts.escape(note)).append("</p><pre>");
            Path text = results.dir().resolve(name + ".txt");
            if (Files.exists(text)) {
                Files.readAllLines(text, StandardCharsets.UTF_8).forEach(l -> html.append(Charts.escape(l)).append('\n'));
            }
            html.append("</pre><div class=\"charts\">");
            List<String[]> rows = Files.readAllLines(results.dir().resolve(name + ".csv"), StandardCharsets.UTF_8).stream()
                    .skip(1).map(l -> l.split(",", -1)).toList();
            double[] t = rows.stream().mapToDouble(r -> Double.parseDouble(r[0])).toArray();
            double[] delivered = rows.stream().mapToDouble(r -> Double.parseDouble(r[1])).toArray();
            double[] p99 = rows.stream().mapToDouble(r -> Double.parseDouble(r[3])).toArray();
            List<Charts.Series> throughput = new ArrayList<>(List.of(Charts.Series.of("ckc", t, delivered)));
            if (rows.stream().allMatch(r -> r.length > 5)) { // sent per second: runs since it was recorded
                throughput.add(Charts.Series.reference("sent", t, rows.stream().mapToDouble(r -> Double.parseDouble(r[5])).toArray()));
            }
            List<Charts.Series> latency = new ArrayList<>(List.of(Charts.Series.of("ckc", t, p99)));
            double[] span = {t.length == 0 ? 0 : t[0], t.length == 0 ? 0 : t[t.length - 1]};
            baselineP99(text).ifPresent(baseline -> latency.add(Charts.Series.reference("p99 before the first event",
                    span, new double[] {baseline, baseline})));
            if (!Double.isNaN(recoveredP99Ms)) {
                latency.add(Charts.Series.reference(String.format(Locale.ROOT, "%.0f ms: recovered", recoveredP99Ms),
                        span, new double[] {recoveredP99Ms, recoveredP99Ms}));
            }
            List<Charts.Marker> markers = new ArrayList<>();
            for (String[] r : rows) {
                if (r.length > 4 && !r[4].isBlank()) {
                    markers.add(new Charts.Marker(Double.parseDouble(r[0]), r[4].replaceFirst(":.*", "")));
                }
            }
            html.append(Charts.line("Delivered " + during, "time (s)", "delivered echoes (msg/s)", Charts.Scale.LINEAR,
                    throughput, markers));
            html.append(Charts.line("p99 RTT " + during, "time (s)", "p99 RTT (ms, log scale)", Charts.Scale.LOG_Y,
                    latency, markers));
            html.append("</div>");
        }

        private static final java.util.regex.Pattern BASELINE_P99 =
                java.util.regex.Pattern.compile("^RESULT baseline_p99_ms=([0-9.]+)");

        /** The {@code RESULT baseline_p99_ms=..} of a scenario's text, if it has one. */
        static java.util.OptionalDouble baselineP99(Path text) throws IOException {
            if (!Files.exists(text)) {
                return java.util.OptionalDouble.empty();
            }
            return Files.readAllLines(text, StandardCharsets.UTF_8).stream().map(BASELINE_P99::matcher)
                    .filter(java.util.regex.Matcher::find).mapToDouble(m -> Double.parseDouble(m.group(1))).findFirst();
        }

        /** The soak: its RESULT lines, and each metric over time, a line per process, group or job. */
        private static void soakSection(StringBuilder html, Results results) throws IOException {
            html.append("<h2>Soak: does anything grow?</h2><p class=\"note\">").append(Charts.escape(SOAK_NOTE))
                    .append("</p><pre>");
            Path text = results.dir().resolve("soak.txt");
            if (Files.exists(text)) {
                Files.readAllLines(text, StandardCharsets.UTF_8).forEach(l -> html.append(Charts.escape(l)).append('\n'));
            }
            html.append("</pre><div class=\"charts\">");
            List<SoakCommand.Sample> samples = SoakCommand.readCsv(results.dir().resolve("soak.csv"));
            for (SoakCommand.Metric metric : SoakCommand.Metric.values()) {
                java.util.Map<String, List<SoakCommand.Sample>> bySeries = new java.util.TreeMap<>();
                samples.stream().filter(s -> s.metric() == metric && !Double.isNaN(s.value()))
                        .forEach(s -> bySeries.computeIfAbsent(s.series(), k -> new ArrayList<>()).add(s));
                if (bySeries.isEmpty()) {
                    continue;
                }
                List<Charts.Series> series = new ArrayList<>();
                // Without the prefix: a name starting "ckc" is drawn in CKC's colour, and every group and job has it.
                bySeries.forEach((name, list) -> series.add(Charts.Series.of(name.replaceFirst("^ckc-", ""),
                        list.stream().mapToDouble(SoakCommand.Sample::minute).toArray(),
                        list.stream().mapToDouble(SoakCommand.Sample::value).toArray())));
                html.append(Charts.line("Soak: " + metric.axis, "time (min)", metric.axis, Charts.Scale.LINEAR, series));
            }
            html.append("</div>");
        }

        private static String machine() {
            Runtime rt = Runtime.getRuntime();
            return String.format(Locale.ROOT, "Made %s on %s %s, %d cores, Java %s", java.time.LocalDateTime.now()
                            .withNano(0), System.getProperty("os.name"), System.getProperty("os.arch"),
                    rt.availableProcessors(), System.getProperty("java.version"));
        }
    }
}
