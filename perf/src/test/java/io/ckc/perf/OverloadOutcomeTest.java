package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What an overload timeline says: delivered ratio, lowest second, dropped sessions, recovery; and its charts. */
class OverloadOutcomeTest {

    private static List<OverloadCommand.Second> timeline(double[] delivered, double[] p99, long[] dropped) {
        List<OverloadCommand.Second> seconds = new ArrayList<>();
        for (int i = 0; i < delivered.length; i++) {
            OverloadCommand.Phase phase = i < 4 ? OverloadCommand.Phase.SATURATION
                    : i < 8 ? OverloadCommand.Phase.OVERLOAD : OverloadCommand.Phase.AFTER;
            double offered = phase == OverloadCommand.Phase.AFTER ? 500 : 1000; // half the saturation load after
            seconds.add(new OverloadCommand.Second("ckc", i + 1, phase, offered, (long) delivered[i], p99[i], p99[i] / 2,
                    100, 0, dropped[i], 128, 256, 0, 0, 0, 0, 0));
        }
        return seconds;
    }

    @Test
    void throughputUnderOverloadIsComparedWithThroughputAtSaturationAndRecoveryNeedsFiveGoodSecondsInARow() {
        double[] delivered = {500, 1000, 1000, 1000, 300, 950, 900, 850, 500, 500, 500, 500, 500, 500, 500, 500, 500};
        double[] p99 = {20, 30, 30, 30, 400, 900, 900, 900, 300, 50, 60, Double.NaN, 40, 40, 40, 40, 40};
        long[] dropped = {0, 0, 0, 2, 2, 3, 3, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6};
        OverloadCommand.Outcome outcome = OverloadCommand.outcome("ckc", 2, timeline(delivered, p99, dropped), 1, 100,
                10_000, 9_000, 400);

        assertThat(outcome.atSaturation().mean()).as("the first second settles").isEqualTo(1000);
        assertThat(outcome.underOverload().mean()).isEqualTo(900);
        assertThat(outcome.deliveredRatio()).isEqualTo(0.9);
        assertThat(outcome.lowestRatio()).isEqualTo(0.85);
        assertThat(outcome.droppedSessions()).as("drops after the saturation phase").isEqualTo(4);
        assertThat(outcome.recoveryMs()).as("a second without echoes breaks a run; recovered from the 5th second on")
                .isEqualTo(4_000L);
        assertThat(outcome.lost()).isEqualTo(600);
        assertThat(outcome.resultLine()).startsWith("RESULT overload_factor=2 path=ckc delivered_ratio=0.900 ")
                .contains("dropped_sessions=4 recovery_ms=4000", "shed=400 lost=600");
    }

    @Test
    void aPathThatNeverRecoversSaysSo() {
        double[] delivered = {1000, 1000, 1000, 1000, 10, 10, 10, 10, 10, 10, 10, 10, 10};
        double[] p99 = {20, 20, 20, 20, 9000, 9000, 9000, 9000, 90, 90, 90, 90, 9000};
        OverloadCommand.Outcome outcome = OverloadCommand.outcome("ckc", 2, timeline(delivered, p99, new long[13]), 0,
                100, 100, 100, 0);
        assertThat(outcome.recoveryMs()).isNull();
        assertThat(outcome.resultLine()).contains("recovery_ms=none");
    }

    @Test
    void aPathThatAnswersFastButCarriesTooLittleOfTheLoadHasNotRecovered() {
        double[] delivered = {1000, 1000, 1000, 1000, 10, 10, 10, 10, 190, 190, 190, 190, 190, 190, 440, 450, 460, 450,
                450};
        double[] p99 = new double[delivered.length];
        java.util.Arrays.fill(p99, 30);
        OverloadCommand.Outcome outcome = OverloadCommand.outcome("ckc", 2, timeline(delivered, p99,
                new long[delivered.length]), 0, 100, 100, 100, 0);
        assertThat(outcome.recoveryMs()).as("0.38 of the 500 msg/s offered until the 7th second after, then 0.90")
                .isEqualTo(6_000L);
    }

    @Test
    void chartsDrawLatencyOnALogAxisLeavingOutWhatItCannotShow() {
        String image = Charts.line("p99", "time (s)", "p99 RTT (ms, log scale)", Charts.Scale.LOG_Y, List.of(
                Charts.Series.withCi("ckc", new double[] {1, 2, 3, 4}, new double[] {5, 0, Double.NaN, 5000},
                        new double[] {4, -1, 1, 4000}, new double[] {6, 1, 2, 6000}),
                Charts.Series.of("kafka", new double[] {1, 2, 3, 4}, new double[] {2, 2, 3, 3}),
                Charts.Series.reference("limit", new double[] {1, 4}, new double[] {100, 100})));
        assertThat(image).startsWith("<img").contains("alt=\"p99 (ckc, kafka, limit)\"", "data:image/png;base64,")
                .doesNotContain("95% CI low"); // the bounds are drawn, not listed
        assertThat(Charts.line("empty", "x", "y", Charts.Scale.LOG_Y, List.of(
                Charts.Series.of("ckc", new double[] {1}, new double[] {0})))).contains("no data");
    }

    /** Search levels at 1,000 msg/s and 1,500 more each, one per p99 (ms). */
    private static SteppedCommand.Sweep search(double... p99Ms) {
        List<Results.StepRow> rows = new ArrayList<>();
        for (int i = 0; i < p99Ms.length; i++) {
            double offered = 1000.0 + 1500 * i;
            rows.add(new Results.StepRow("ckc", i + 1, offered, Summary.of(new double[] {offered, offered}),
                    Summary.of(new double[] {p99Ms[i], p99Ms[i]}), Summary.of(new double[] {5, 5}), (long) offered * 10, 0));
        }
        return new SteppedCommand.Sweep(rows, 77);
    }

    @Test
    void withoutASaturationGivenTheLoadIsTheFirstLevelOfTheRunsOwnSearchPastTheLimit() {
        OverloadCommand.Saturation found = OverloadCommand.saturation(search(44, 52, 68, 55, 92, 103));
        assertThat(found.perSecond()).as("the first level past 100 ms").isEqualTo(8_500);
        assertThat(found.resultFields()).isEqualTo(" saturation_offered_per_s=8500 saturation_from=search");

        OverloadCommand.Saturation unsaturated = OverloadCommand.saturation(search(40, 50, 60));
        assertThat(unsaturated.resultFields()).as("the top level, and the line says it did not saturate")
                .isEqualTo(" saturation_offered_per_s=4000 saturation_from=search-unsaturated");
    }

    @Test
    void aSecondKeepsTheCongestionWindowsAndRefusalsAndAnOlderTimelineReadsWithout() {
        OverloadCommand.Second second = new OverloadCommand.Second("ckc", 7, OverloadCommand.Phase.OVERLOAD, 2000, 1800,
                45.5, 12.25, 2000, 3, 0, 4096, 128, 250, 17, 900, 40, 3100);
        assertThat(OverloadCommand.Second.parse(second.csv())).isEqualTo(second);
        assertThat(OverloadCommand.Second.parse("ckc,7,overload,2000,1800,45.500,12.250,2000,3,0").windowFrames())
                .as("a timeline from before windows were kept").isEqualTo(-1);
        OverloadCommand.Second before = OverloadCommand.Second.parse("ckc,7,overload,2000,1800,45.500,12.250,2000,3,0,4096");
        assertThat(List.of(before.windowFrames(), before.gatewayWindowFrames(), before.busyPerSecond(),
                before.kernelDropsPerSecond())).as("a timeline from before the gateways' windows were kept")
                .containsExactly(4096L, -1L, -1L, -1L);
        OverloadCommand.Second withoutHeld = OverloadCommand.Second.parse(
                "ckc,7,overload,2000,1800,45.500,12.250,2000,3,0,4096,128,250,17");
        assertThat(List.of(withoutHeld.kernelDropsPerSecond(), withoutHeld.heldWaiting(), withoutHeld.heldQueued(),
                withoutHeld.heldInFlight())).as("a timeline from before the nodes' messages were counted")
                .containsExactly(17L, -1L, -1L, -1L);
    }
}
