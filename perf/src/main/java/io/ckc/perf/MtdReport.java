package io.ckc.perf;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The paper's Figure 16 (TE and RTT by configuration) and Figure 17 (RTT bands), on the terminal and as CSV. */
final class MtdReport {

    /** Figure 17's bands, upper bounds in ms; the last band is everything above 2000 ms. */
    static final long[] BAND_UPPER_MS = {20, 50, 100, 200, 500, 1000, 2000};

    static final String CSV_HEADER = "config,nodes,messages,rate_per_min,sent,replied,expired,dropped,te,te_desc,"
            + "desc_full_share,expired_delivered,arrived_late,duplicates,absences,rtt_fixed_mean_ms,rtt_fixed_sd_ms,"
            + "rtt_desc_mean_ms,rtt_desc_sd_ms,"
            + "band_le20,band_le50,band_le100,band_le200,band_le500,band_le1000,band_le2000,band_gt2000";

    private MtdReport() {
    }

    /** One row of the tables, from a run or from a CSV line. */
    record Row(String config, int nodes, int messages, double ratePerMinute, long sent, long replied, long expired,
               long dropped, double te, double teDesc, double descFullShare, long expiredDelivered, long arrivedLate,
               long duplicates, long absences,
               double rttFixedMean, double rttFixedSd, double rttDescMean, double rttDescSd, double[] bands) {

        static Row of(MtdRun.Result r, int nodes, int messages, double ratePerMinute) {
            Histogram all = r.fixed().copy();
            all.add(r.disconnecting());
            return new Row(r.configuration().id(), nodes, messages, ratePerMinute, r.sent(), r.replied(), r.expired(),
                    r.dropped(), r.te(), r.teDisconnecting(), r.disconnectingFullShare(), r.expiredDelivered(),
                    r.arrivedLate(), r.duplicates(), r.absences(), meanMs(r.fixed()), sdMs(r.fixed()), meanMs(r.disconnecting()),
                    sdMs(r.disconnecting()), MtdReport.bands(all));
        }

        String resultLine() {
            return String.format(Locale.ROOT, "RESULT config=%s te=%.2f te_desc=%s desc_full_share=%s "
                            + "expired_delivered=%d rtt_fixed_mean_ms=%.2f rtt_desc_mean_ms=%s", config, te,
                    orNa(teDesc), orNa(descFullShare), expiredDelivered, rttFixedMean, orNa(rttDescMean));
        }

        private static String orNa(double value) {
            return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.2f", value);
        }

        String csv() {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "%s,%d,%d,%.3f,%d,%d,%d,%d,%.4f,%.4f,%.4f,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f", config, nodes, messages,
                    ratePerMinute, sent, replied, expired, dropped, te, teDesc, descFullShare, expiredDelivered,
                    arrivedLate, duplicates, absences,
                    rttFixedMean, rttFixedSd, rttDescMean, rttDescSd));
            for (double band : bands) {
                line.append(String.format(Locale.ROOT, ",%.4f", band));
            }
            return line.toString();
        }

        static Row parse(String line) {
            String[] f = line.split(",");
            double[] bands = new double[BAND_UPPER_MS.length + 1];
            for (int i = 0; i < bands.length; i++) {
                bands[i] = Double.parseDouble(f[19 + i]);
            }
            return new Row(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), Double.parseDouble(f[3]),
                    Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]),
                    Double.parseDouble(f[8]), Double.parseDouble(f[9]), Double.parseDouble(f[10]), Long.parseLong(f[11]),
                    Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14]), Double.parseDouble(f[15]),
                    Double.parseDouble(f[16]), Double.parseDouble(f[17]), Double.parseDouble(f[18]), bands);
        }

        /** RTT Fixed as a ratio to the bare-Kafka echo with the same nodes and load, if one was measured. */
        double rttFixedTimesKafka(List<Results.RunRow> runs) {
            return ReportCommand.baselineOf(nodes, messages, ratePerMinute, runs)
                    .map(b -> ReportCommand.ratio(rttFixedMean, b.meanMs())).orElse(Double.NaN);
        }
    }

    private static double meanMs(Histogram h) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getMean() / 1000.0;
    }

    private static double sdMs(Histogram h) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getStdDeviation() / 1000.0;
    }

    /** Share (%) of round trips in each of Figure 17's bands; the shares sum to 100. */
    static double[] bands(Histogram microseconds) {
        return Report.bands(microseconds, BAND_UPPER_MS);
    }

    /** Figure 16's rows; {@code runs}: the bare-Kafka echoes measured beside them, for the ×kafka column. */
    static void printFigure16(PrintStream out, List<Row> rows, List<Results.RunRow> runs) {
        out.println();
        out.println("Figure 16 layout: TE and RTT (core -> MN -> core, ms); TE counts messages that did not expire;");
        out.println("x kafka = RTT Fixed divided by the bare-Kafka echo's mean with the same nodes and load");
        out.printf("%-6s %8s %9s %12s %10s %10s %10s %10s %9s %8s %8s %8s%n", "ID", "TE", "TE Desc", "100% TE Desc",
                "RTT Fixed", "SD Fixed", "RTT Desc", "SD Desc", "expired", "dropped", "exp.dlv", "x kafka");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "%-6s %7.2f%% %9s %12s %10.3f %10.3f %10s %10s %9d %8d %8d %8s%n", r.config(), r.te(),
                    percent(r.teDesc()), percent(r.descFullShare()), r.rttFixedMean(), r.rttFixedSd(),
                    number(r.rttDescMean()), number(r.rttDescSd()), r.expired(), r.dropped(), r.expiredDelivered(),
                    number(r.rttFixedTimesKafka(runs)));
        }
    }

    static List<String> bandLabels() {
        return Report.bandLabels(BAND_UPPER_MS);
    }

    static void printFigure17(PrintStream out, List<Row> rows) {
        out.println();
        out.println("Figure 17 layout: share of round trips by RTT band (ms)");
        out.printf("%-8s", "RTT");
        rows.forEach(r -> out.printf("%10s", r.config()));
        out.println();
        List<String> labels = bandLabels();
        for (int band = 0; band < labels.size(); band++) {
            out.printf("%-8s", labels.get(band));
            for (Row r : rows) {
                out.printf(Locale.ROOT, "%9.2f%%", r.bands()[band]);
            }
            out.println();
        }
    }

    private static String percent(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.2f%%", value);
    }

    private static String number(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.3f", value);
    }

    static void appendCsv(Path csv, List<Row> rows) throws IOException {
        if (csv.getParent() != null) {
            Files.createDirectories(csv.getParent());
        }
        List<String> lines = new ArrayList<>();
        if (!Files.exists(csv)) {
            lines.add(CSV_HEADER);
        }
        rows.forEach(r -> lines.add(r.csv()));
        Files.write(csv, lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    static List<Row> readCsv(Path csv) throws IOException {
        return Files.readAllLines(csv, StandardCharsets.UTF_8).stream().skip(1).filter(l -> !l.isBlank())
                .map(Row::parse).toList();
    }
}
