package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Downtime, gap and the counts of one rescale, read from the seconds around it. */
class RescaleOutcomeTest {

    private static List<RescaleCommand.Second> timeline(long[] delivered, double[] p99, long[] duplicates) {
        List<RescaleCommand.Second> timeline = new ArrayList<>();
        for (int i = 0; i < delivered.length; i++) {
            // 100 messages numbered per second; a node's duplicate, a reordering and an app duplicate each as counted
            timeline.add(new RescaleCommand.Second(i + 1, delivered[i], p99[i] / 2, p99[i], (i + 1) * 100,
                    (i + 1) * 100L, duplicates[i], duplicates[i] * 2, duplicates[i] * 3));
        }
        return timeline;
    }

    @Test
    void downtimeIsTheLongestSilenceAndTheGapLastsUntilP99IsBackUnderTwiceItsLevelForThreeSeconds() {
        long[] delivered = {100, 100, 100, 100, 0, 0, 0, 50, 300, 100, 100, 100, 100, 100};
        double[] p99 = {10, 10, 12, 10, Double.NaN, Double.NaN, Double.NaN, 4000, 900, 19, 30, 15, 12, 11};
        long[] duplicates = {0, 0, 0, 1, 1, 1, 1, 1, 4, 4, 4, 4, 4, 4};
        List<RescaleCommand.Second> timeline = timeline(delivered, p99, duplicates);
        RescaleCommand.Op op = new RescaleCommand.Op("delivery", 2, RescaleCommand.SAVEPOINT, 5,
                Map.of("from", "1", "savepoint_ms", "650", "restart_ms", "4000", "caught_up_ms", "5100"));
        String line = RescaleCommand.resultLine(op, timeline, 15, 7);
        // seconds 5-7 silent: the rescale shows from second 5; p99 under 2 x 10 ms for three seconds from
        // second 12 on (second 11 had 30 ms): 7 s. Counts over seconds 5-14: 4 - 1 duplicates.
        assertThat(line).isEqualTo("RESULT op=savepoint job=delivery from=1 to=2 savepoint_ms=650 restart_ms=4000 "
                + "caught_up_ms=5100 downtime_ms=3000 gap_ms=7000 lost=7 app_duplicates=9 mn_duplicates=3 reordered=6 "
                + "p99_before_ms=10.0");
        assertThat(RescaleCommand.seqAt(timeline, 4)).isEqualTo(400);
        assertThat(RescaleCommand.seqAt(timeline, 0)).isZero();
        assertThat(RescaleCommand.resultLine(new RescaleCommand.Op("echo", 1, RescaleCommand.SAVEPOINT, 5, Map.of()), timeline.subList(0, 9), 10, 0))
                .contains("savepoint_ms=failed", "gap_ms=none");
        assertThat(RescaleCommand.resultLine(new RescaleCommand.Op("echo", 1, RescaleCommand.SAVEPOINT, 2, Map.of()), timeline.subList(0, 4), 5, 0))
                .as("a rescale that never shows has no gap").contains("downtime_ms=0 gap_ms=0");
    }

    @Test
    void anInPlaceRescaleReportsTheSchedulersTimeAndOpsAreCheckedBeforeTheLoad() {
        List<RescaleCommand.Second> timeline = timeline(new long[] {100, 100, 100}, new double[] {10, 10, 10},
                new long[] {0, 0, 0});
        RescaleCommand.Op op = RescaleCommand.Op.parse("delivery:2:in-place", 2)
                .withResult(Map.of("from", "1", "rescale_ms", "2900", "caught_up_ms", "800"));
        assertThat(RescaleCommand.resultLine(op, timeline, 4, 0)).startsWith(
                "RESULT op=in-place job=delivery from=1 to=2 rescale_ms=2900 caught_up_ms=800 downtime_ms=0 gap_ms=0 lost=0 ");
        assertThat(RescaleCommand.Op.parse("echo:1", 0).mode()).isEqualTo("savepoint");
        assertThatThrownBy(() -> RescaleCommand.Op.parse("echo:1:sideways", 0)).hasMessageContaining("JOB:PARALLELISM:MODE");
        RescaleCommand.Op blueGreen = RescaleCommand.Op.parse("delivery:2:blue-green", 2).withResult(Map.of("from", "1",
                "savepoint_ms", "400", "restart_ms", "2100", "overlap_ms", "5200", "caught_up_ms", "900"));
        assertThat(RescaleCommand.resultLine(blueGreen, timeline, 4, 0)).startsWith("RESULT op=blue-green job=delivery "
                + "from=1 to=2 savepoint_ms=400 restart_ms=2100 overlap_ms=5200 caught_up_ms=900 downtime_ms=0 gap_ms=0 ");
    }
}
