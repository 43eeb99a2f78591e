package io.ckc.perf;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** Tables in the layouts of the paper's figures. Histograms hold microseconds; tables show milliseconds. */
final class Report {

    private Report() {
    }

    /** One configuration of the paper's Figure 4 (scenario 1). */
    record Row(int nodes, int appParallelism, int gateways, Histogram rtt, double tePercent) {
    }

    /** Figure 8's bands, upper bounds in ms; the last band is everything above 100 ms. */
    static final long[] FIGURE8_BANDS_MS = {10, 20, 30, 40, 50, 100};

    /**
     * Share (%) of round trips in each band: up to the first bound, between consecutive bounds, and
     * above the last. The shares sum to 100 (0 for an empty histogram).
     */
    static double[] bands(Histogram microseconds, long[] upperMs) {
        double[] shares = new double[upperMs.length + 1];
        long total = microseconds.getTotalCount();
        if (total == 0) {
            return shares;
        }
        long below = 0;
        for (int i = 0; i < upperMs.length; i++) {
            long upTo = microseconds.getCountBetweenValues(0, upperMs[i] * 1000);
            shares[i] = 100.0 * (upTo - below) / total;
            below = upTo;
        }
        shares[upperMs.length] = 100.0 * (total - below) / total;
        return shares;
    }

    /** Band labels: "<= 10", ..., "> 100". */
    static List<String> bandLabels(long[] upperMs) {
        List<String> labels = new java.util.ArrayList<>();
        for (long bound : upperMs) {
            labels.add("<= " + bound);
        }
        labels.add("> " + upperMs[upperMs.length - 1]);
        return labels;
    }

    static void figure4(PrintStream out, List<Row> rows) {
        out.println("Figure 4 layout: round trip MN -> gateway -> Kafka -> echo app -> delivery job -> gateway -> MN (ms)");
        out.printf("%-4s %7s %7s %4s %10s %10s %9s %9s %9s %9s%n",
                "ID", "MNs", "APP", "GW", "Mean RTT", "Std dev", "p50", "p99", "max", "TE");
        int id = 1;
        for (Row row : rows) {
            Histogram h = row.rtt();
            out.printf(Locale.ROOT, "%-4d %7d %7d %4d %10.3f %10.3f %9.3f %9.3f %9.3f %8.2f%%%n",
                    id++, row.nodes(), row.appParallelism(), row.gateways(), h.getMean() / 1000.0,
                    h.getStdDeviation() / 1000.0, h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0, row.tePercent());
        }
    }
}
