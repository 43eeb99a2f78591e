package io.ckc.perf;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class StatisticsTest {

    @Test
    void theConfidenceIntervalOfOneToTenUsesStudentsTWithNineDegreesOfFreedom() {
        Summary s = Summary.of(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        assertThat(s.n()).isEqualTo(10);
        assertThat(s.mean()).isEqualTo(5.5);
        assertThat(s.sd()).isCloseTo(3.02765, within(1e-5));
        // t(0.975, 9) = 2.26216; 2.26216 * 3.02765 / sqrt(10) = 2.16585
        assertThat(s.ci95()).isCloseTo(2.16585, within(1e-4));
        assertThat(s.low()).isCloseTo(3.33415, within(1e-4));
    }

    @Test
    void missingSamplesAreLeftOutAndTooFewHaveNoInterval() {
        assertThat(Summary.of(new double[] {Double.NaN, 4, 6}).mean()).isEqualTo(5);
        assertThat(Summary.of(new double[] {7}).ci95()).isNaN();
        assertThat(Summary.of(new double[] {}).n()).isZero();
    }

    @Test
    void figure8BandsSplitRoundTripsByUpperBoundAndSumToOneHundred() {
        Histogram h = new Histogram(3);
        for (long ms : new long[] {5, 10, 15, 25, 35, 45, 75, 150, 250, 400}) {
            h.recordValue(ms * 1000);
        }
        double[] bands = Report.bands(h, Report.FIGURE8_BANDS_MS);
        assertThat(bands).containsExactly(new double[] {20, 10, 10, 10, 10, 10, 30}, within(1e-9));
        assertThat(Arrays.stream(bands).sum()).isCloseTo(100, within(1e-9));
        assertThat(Report.bandLabels(Report.FIGURE8_BANDS_MS)).containsExactly("<= 10", "<= 20", "<= 30", "<= 40",
                "<= 50", "<= 100", "> 100");
        assertThat(Report.bands(new Histogram(3), Report.FIGURE8_BANDS_MS)).containsOnly(0);
    }

    @Test
    void theCapacitySlopeIsTheLeastSquaresBytesPerNode() {
        List<CapacityCommand.Row> rows = List.of(new CapacityCommand.Row(0, 0, 100, 200, 1.0, 50, 2.0, 1.0),
                new CapacityCommand.Row(10_000, 10_000, 120, 230, 2.5, Double.NaN, 2.0, 1.0),
                new CapacityCommand.Row(20_000, 20_000, 140, 260, 4.0, 90, 2.0, 1.0));
        assertThat(CapacityCommand.slope(rows, CapacityCommand.Row::heapMb) * 1048576).isCloseTo(2097.152, within(1e-6));
        assertThat(CapacityCommand.slope(rows, CapacityCommand.Row::idleCpuPercent) * 10_000).as("CPU per 10,000 nodes")
                .isCloseTo(1.5, within(1e-9));
        assertThat(CapacityCommand.slope(rows, CapacityCommand.Row::simulatorHeapMb) * 1048576).as("a NaN row is left out")
                .isCloseTo(2097.152, within(1e-6));
    }

    @Test
    void aStepIsSaturatedByItsP99OrByALoss() {
        Summary fast = new Summary(30, 20, 1, 1);
        Summary slow = new Summary(30, 150, 1, 1);
        Summary any = new Summary(30, 100, 1, 1);
        assertThat(new Results.StepRow("ckc", 1, 100, any, fast, fast, 1000, 0).saturated(100)).isFalse();
        assertThat(new Results.StepRow("ckc", 2, 200, any, slow, fast, 1000, 0).saturated(100)).isTrue();
        assertThat(new Results.StepRow("ckc", 3, 300, any, fast, fast, 1000, 1).saturated(100)).isTrue();
    }

    @Test
    void runAndStepRowsSurviveTheirCsv() {
        Results.RunRow run = new Results.RunRow("3", "ckc", 5000, 1, 1, 10, 12, 50_000, 49_990, 2, 61.5, 12.5, 3.25,
                10.1, 80.4, 120.9);
        assertThat(Results.RunRow.parse(run.csv())).isEqualTo(run);
        assertThat(run.lost()).isEqualTo(10);
        Results.StepRow step = new Results.StepRow("kafka", 2, 500, new Summary(30, 498.5, Double.NaN, 3.25),
                new Summary(30, 12.125, Double.NaN, 1.5), new Summary(30, 4.5, Double.NaN, 0.25), 20_000, 0);
        assertThat(Results.StepRow.parse(step.csv())).isEqualTo(step);
    }
}
