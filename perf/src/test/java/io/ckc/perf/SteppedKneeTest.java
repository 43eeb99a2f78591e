package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SteppedKneeTest {

    private static final double STEP = 1_500;

    /** A sweep from 1,000 msg/s up by {@link #STEP} whose levels had these p99s (ms), nothing lost. */
    private static SteppedCommand.Sweep sweep(String path, double... p99s) {
        List<Results.StepRow> rows = new ArrayList<>();
        for (int i = 0; i < p99s.length; i++) {
            Summary p99 = new Summary(30, p99s[i], 1, 1);
            Summary other = new Summary(30, 1, 1, 1);
            rows.add(new Results.StepRow(path, i + 1, 1_000 + i * STEP, other, p99, other, 1_000, 0));
        }
        return new SteppedCommand.Sweep(rows, 0);
    }

    @Test
    void aPathThatSaturatesHasTheLevelBeforeAsItsLastGoodOne() {
        SteppedCommand.Knee knee = SteppedCommand.Knee.of(sweep("ckc", 20, 40, 150));

        assertTrue(knee.saturated());
        assertEquals(2_500, knee.lastGoodPerSecond());
        assertEquals("RESULT path=ckc saturation_offered_per_s=4000 last_good_offered_per_s=2500", knee.resultLine("ckc"));
    }

    @Test
    void aPathPastTheLimitAtItsFirstLevelHasNoGoodLevelAndAShareOfZero() {
        SteppedCommand.Knee knee = SteppedCommand.Knee.of(sweep("ckc", 300));
        SteppedCommand.Knee echo = SteppedCommand.Knee.of(sweep("kafka", 2, 2, 3, 200));

        assertEquals("RESULT path=ckc saturation_offered_per_s=1000 last_good_offered_per_s=none", knee.resultLine("ckc"));
        assertTrue(knee.comparison("ckc", echo).contains(" ratio_to_baseline=0.000 "));
    }

    @Test
    void theShareIsOfTheEchosLastGoodLevelAndSaysWhetherTheEchoSaturated() {
        SteppedCommand.Knee ckc = SteppedCommand.Knee.of(sweep("ckc", 20, 40, 150));
        SteppedCommand.Knee echo = SteppedCommand.Knee.of(sweep("kafka", 2, 2, 3, 3, 200));

        assertEquals("RESULT path=ckc compared_to=kafka last_good_offered_per_s=2500 baseline_last_good_offered_per_s=5500 "
                + "ratio_to_baseline=0.455 baseline_saturated=true", ckc.comparison("ckc", echo));
    }

    @Test
    void anEchoThatNeverSaturatedOnlyBoundsTheShareFromAbove() {
        SteppedCommand.Knee ckc = SteppedCommand.Knee.of(sweep("ckc", 20, 150));
        SteppedCommand.Knee echo = SteppedCommand.Knee.of(sweep("kafka", 2, 2, 3));

        assertFalse(echo.saturated());
        assertEquals("RESULT path=kafka saturation_offered_per_s=none max_offered_per_s=4000", echo.resultLine("kafka"));
        assertTrue(ckc.comparison("ckc", echo).endsWith("ratio_to_baseline=0.250 baseline_saturated=false"));
    }

    @Test
    void theEchoStepsByTheStepAsFarAsTheCkcPathsThenEachLevelAQuarterAboveTheLast() {
        SteppedCommand echo = SteppedCommand.levels(2_000, 1_000, STEP, 30, 8, 30, Schedule.Arrivals.POISSON, 10, System.out);
        echo.arithmeticLevels = 14;

        assertEquals(1_000, echo.offeredAt(1));
        assertEquals(20_500, echo.offeredAt(14));
        assertEquals(25_625, echo.offeredAt(15));
        assertEquals(32_031, echo.offeredAt(16));
        SteppedCommand ckc = SteppedCommand.levels(2_000, 1_000, STEP, 14, 8, 30, Schedule.Arrivals.POISSON, 10, System.out);
        assertEquals(29_500, ckc.offeredAt(20), "a CKC path keeps its step");
    }

    @Test
    void aKneePastGrowingLevelsIsTheLevelBeforeIt() {
        List<Results.StepRow> rows = new ArrayList<>();
        double[] offered = {20_500, 25_625, 32_031};
        double[] p99 = {10, 12, 400};
        for (int i = 0; i < offered.length; i++) {
            Summary other = new Summary(30, 1, 1, 1);
            rows.add(new Results.StepRow("kafka", 14 + i, offered[i], other, new Summary(30, p99[i], 1, 1), other, 1, 0));
        }
        SteppedCommand.Knee knee = SteppedCommand.Knee.of(new SteppedCommand.Sweep(rows, 0));

        assertEquals(25_625, knee.lastGoodPerSecond());
        assertEquals(32_031, knee.saturationPerSecond());
    }

    @Test
    void theParsedComparisonLineIsOneRowOfItsOwnInAnAbTable() {
        SteppedCommand.Knee ckc = SteppedCommand.Knee.of(sweep("ckc", 20, 150));
        SteppedCommand.Knee echo = SteppedCommand.Knee.of(sweep("kafka", 2, 200));

        String line = ckc.comparison("ckc", echo);

        assertTrue(line.startsWith("RESULT path=ckc compared_to=kafka "));
        assertEquals(1.0, Double.parseDouble(line.replaceAll(".* ratio_to_baseline=([0-9.]+) .*", "$1")));
    }
}
