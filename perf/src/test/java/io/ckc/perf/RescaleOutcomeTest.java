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
            // of a node's duplicates, one in four reached an MQTT device
            timeline.add(new RescaleCommand.Second(i + 1, delivered[i], p99[i] / 2, p99[i], (i + 1) * 100,
                    (i + 1) * 100L, duplicates[i] * 4, duplicates[i] * 2, duplicates[i] * 3, duplicates[i]));
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
        String line = RescaleCommand.resultLine(op, timeline, 15, 7, 4321.5);
        // seconds 5-7 silent: the rescale shows from second 5; p99 under 2 x 10 ms for three seconds from
        // second 12 on (second 11 had 30 ms): 7 s. Counts over seconds 5-14: (4 - 1) x 4 duplicates, 3 of them
        // a device's.
        assertThat(line).isEqualTo("RESULT op=delivery:2 mode=savepoint job=delivery from=1 to=2 savepoint_ms=650 "
                + "restart_ms=4000 caught_up_ms=5100 downtime_ms=3000 gap_ms=7000 p99_ms=4321.5 steady_p99_ms=10.0 "
                + "lost=7 node_duplicates=9 device_duplicates=3 app_duplicates=9 reordered=6");
        assertThat(RescaleCommand.seqAt(timeline, 4)).isEqualTo(400);
        assertThat(RescaleCommand.seqAt(timeline, 0)).isZero();
        assertThat(RescaleCommand.resultLine(new RescaleCommand.Op("echo", 1, RescaleCommand.SAVEPOINT, 5, Map.of()), timeline.subList(0, 9), 10, 0, 1))
                .contains("savepoint_ms=failed", "gap_ms=none");
        assertThat(RescaleCommand.resultLine(new RescaleCommand.Op("echo", 1, RescaleCommand.SAVEPOINT, 2, Map.of()), timeline.subList(0, 4), 5, 0, 1))
                .as("a rescale that never shows has no gap").contains("downtime_ms=0 gap_ms=0");
    }

    @Test
    void anInPlaceRescaleReportsTheSchedulersTimeAndOpsAreCheckedBeforeTheLoad() {
        List<RescaleCommand.Second> timeline = timeline(new long[] {100, 100, 100}, new double[] {10, 10, 10},
                new long[] {0, 0, 0});
        RescaleCommand.Op op = RescaleCommand.Op.parse("delivery:2:in-place", 2)
                .withResult(Map.of("from", "1", "rescale_ms", "2900", "caught_up_ms", "800"));
        assertThat(RescaleCommand.resultLine(op, timeline, 4, 0, 12)).startsWith("RESULT op=delivery:2 mode=in-place "
                + "job=delivery from=1 to=2 rescale_ms=2900 caught_up_ms=800 downtime_ms=0 gap_ms=0 p99_ms=12.0 ");
        assertThat(RescaleCommand.Op.parse("echo:1", 0).mode()).isEqualTo("savepoint");
        assertThat(RescaleCommand.planned(List.of("delivery:2", "delivery:1"), List.of("savepoint", "blue-green")))
                .extracting(o -> o.job() + ":" + o.to() + ":" + o.mode())
                .containsExactly("delivery:2:savepoint", "delivery:1:savepoint", "delivery:2:blue-green",
                        "delivery:1:blue-green");
        assertThatThrownBy(() -> RescaleCommand.planned(List.of("echo:2:in-place"), List.of("savepoint")))
                .hasMessageContaining("JOB:PARALLELISM");
        assertThatThrownBy(() -> RescaleCommand.planned(List.of("echo:2"), List.of("sideways")))
                .hasMessageContaining("JOB:PARALLELISM:MODE");
        assertThatThrownBy(() -> RescaleCommand.Op.parse("echo:1:sideways", 0)).hasMessageContaining("JOB:PARALLELISM:MODE");
        RescaleCommand.Op blueGreen = RescaleCommand.Op.parse("delivery:2:blue-green", 2).withResult(Map.of("from", "1",
                "savepoint_ms", "400", "restart_ms", "2100", "overlap_ms", "5200", "caught_up_ms", "900"));
        assertThat(RescaleCommand.resultLine(blueGreen, timeline, 4, 0, 12)).startsWith("RESULT op=delivery:2 "
                + "mode=blue-green job=delivery from=1 to=2 savepoint_ms=400 restart_ms=2100 overlap_ms=5200 "
                + "caught_up_ms=900 downtime_ms=0 gap_ms=0 ");
    }
}
