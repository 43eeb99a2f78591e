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
        MtdReport.Row row = new MtdReport.Row("mtd_2", 50_000, 49_000, 1_000, 0, 100.0, 100.0, 100.0, 0, 3, 0, 420,
                14.25, 13.6, 3_862.2, 10_095.5, new double[] {64.88, 11.67, 4.13, 2.05, 1.82, 0.61, 0.04, 14.80});
        Path csv = dir.resolve("mtd.csv");
        java.nio.file.Files.writeString(csv, MtdReport.CSV_HEADER + "\n" + row.csv() + "\n");
        List<MtdReport.Row> back = MtdReport.readCsv(csv);
        assertThat(back).hasSize(1);
        assertThat(back.get(0).config()).isEqualTo("mtd_2");
        assertThat(back.get(0).expired()).isEqualTo(1_000);
        assertThat(back.get(0).rttDescMean()).isCloseTo(3_862.2, within(1e-3));
        assertThat(back.get(0).bands()).containsExactly(row.bands(), within(1e-4));
        assertThat(back.get(0).resultLine()).isEqualTo("RESULT config=mtd_2 te=100.00 te_desc=100.00 "
                + "desc_full_share=100.00 expired_delivered=0 rtt_fixed_mean_ms=14.25 rtt_desc_mean_ms=3862.20");
    }
}
