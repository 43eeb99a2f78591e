package io.ckc.perf;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class MtdReportTest {

    @Test
    void roundTripsFallIntoFigure17sBandsAndTheSharesSumTo100() {
        Histogram micros = new Histogram(60_000_000L, 3);
        // 4 at 10 ms, 2 at 20 ms (a band's upper bound is inclusive), 1 at 75 ms, 1 at 1.5 s, 2 at 30 s.
        for (long ms : new long[] {10, 10, 10, 10, 20, 20, 75, 1_500, 30_000, 30_000}) {
            micros.recordValue(ms * 1000);
        }
        double[] bands = MtdReport.bands(micros);
        assertThat(bands).containsExactly(new double[] {60, 0, 10, 0, 0, 0, 10, 20}, within(1e-9));
        assertThat(Arrays.stream(bands).sum()).isCloseTo(100.0, within(1e-9));
    }

    @Test
    void noRoundTripsGiveEmptyBands() {
        assertThat(MtdReport.bands(new Histogram(1_000_000L, 3))).containsOnly(0.0);
    }

    @Test
    void rowsSurviveTheCsvThatJoinsTheTwoStacksRuns(@TempDir Path dir) throws Exception {
        MtdReport.Row row = new MtdReport.Row("mtd_2", 5_000, 10, 4.0, 50_000, 49_000, 1_000, 0, 100.0, 100.0, 100.0, 0, 3, 0, 420,
                14.25, 13.6, 3_862.2, 10_095.5, new double[] {64.88, 11.67, 4.13, 2.05, 1.82, 0.61, 0.04, 14.80});
        Path csv = dir.resolve("mtd.csv");
        java.nio.file.Files.writeString(csv, MtdReport.CSV_HEADER + "\n" + row.csv() + "\n");
        List<MtdReport.Row> back = MtdReport.readCsv(csv);
        assertThat(back).hasSize(1);
        assertThat(back.get(0).config()).isEqualTo("mtd_2");
        assertThat(back.get(0).nodes()).isEqualTo(5_000);
        assertThat(back.get(0).ratePerMinute()).isEqualTo(4.0);
        assertThat(back.get(0).expired()).isEqualTo(1_000);
        assertThat(back.get(0).rttDescMean()).isCloseTo(3_862.2, within(1e-3));
        assertThat(back.get(0).bands()).containsExactly(row.bands(), within(1e-4));
        assertThat(back.get(0).resultLine()).isEqualTo("RESULT config=mtd_2 te=100.00 te_desc=100.00 "
                + "desc_full_share=100.00 expired_delivered=0 rtt_fixed_mean_ms=14.25 rtt_desc_mean_ms=3862.20");
    }

    @Test
    void theReportShowsFigures16And17BesideTheBaselineWithTheSameNodesAndLoad(@TempDir Path dir) throws Exception {
        Results results = new Results(dir);
        RoundTrips trips = new RoundTrips(100);
        for (int i = 0; i < 100; i++) {
            trips.sent.incrementAndGet();
            trips.record(0, 2_000); // 2 ms each
        }
        results.addRun(Results.RunRow.of("k100", Results.KAFKA, 100, 0, 0, 1, 4.0, trips, 10), trips, List.of());
        MtdReport.appendCsv(results.mtdCsv(), List.of(
                new MtdReport.Row("mtd_1", 100, 1, 4.0, 100, 100, 0, 0, 100.0, Double.NaN, Double.NaN, 0, 0, 0, 0,
                        8.0, 1.0, Double.NaN, Double.NaN, new double[] {90, 10, 0, 0, 0, 0, 0, 0}),
                new MtdReport.Row("mtd_2", 200, 1, 4.0, 200, 200, 0, 0, 100.0, 100.0, 100.0, 0, 0, 0, 3,
                        6.0, 1.0, 900.0, 50.0, new double[] {50, 0, 0, 0, 0, 50, 0, 0})));

        ReportCommand.write(results, new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));

        List<String> figure16 = java.nio.file.Files.readAllLines(dir.resolve("figure16.csv"));
        assertThat(figure16).hasSize(3);
        assertThat(figure16.get(1)).startsWith("mtd_1,").endsWith(",4.0000"); // 8 ms over the baseline's 2 ms
        assertThat(figure16.get(2)).as("no baseline with 200 nodes").startsWith("mtd_2,").endsWith(",NaN");
        for (String line : java.nio.file.Files.readAllLines(dir.resolve("figure17.csv")).subList(1, 3)) {
            assertThat(Arrays.stream(line.split(",")).skip(1).mapToDouble(Double::parseDouble).sum())
                    .isCloseTo(100.0, within(0.01));
        }
        assertThat(java.nio.file.Files.readString(dir.resolve("tables.txt")))
                .contains("Figure 16 layout", "Figure 17 layout", "Figure 4 layout");
        assertThat(java.nio.file.Files.readString(dir.resolve("report.html")))
                .contains("MTD scenarios (Figure 16 layout)", "Figure 17: round trips by RTT band", "<td>4.00</td>");
    }
}
