package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Downtime and gap of one rescale, read from the seconds around it. */
class RescaleOutcomeTest {

    @Test
    void downtimeIsTheLongestSilenceAndTheGapLastsUntilP99IsBackUnderTwiceItsLevelForThreeSeconds() {
        long[] delivered = {100, 100, 100, 100, 0, 0, 0, 50, 300, 100, 100, 100, 100, 100};
        double[] p99 = {10, 10, 12, 10, Double.NaN, Double.NaN, Double.NaN, 4000, 900, 19, 30, 15, 12, 11};
        List<RescaleCommand.Second> timeline = new ArrayList<>();
        for (int i = 0; i < delivered.length; i++) {
            timeline.add(new RescaleCommand.Second(i + 1, delivered[i], p99[i] / 2, p99[i]));
        }
        RescaleCommand.Op op = new RescaleCommand.Op("delivery", 2, 5,
                Map.of("from", "1", "savepoint_ms", "650", "restart_ms", "4000", "caught_up_ms", "5100"));
        String line = RescaleCommand.resultLine(op, timeline, 15);
        assertThat(line).isEqualTo("RESULT op=savepoint job=delivery from=1 to=2 savepoint_ms=650 restart_ms=4000 "
                + "caught_up_ms=5100 downtime_ms=3000 gap_ms=7000 p99_before_ms=10.0");
        // seconds 5-7 silent: the rescale shows from second 5; p99 under 2 x 10 ms for three seconds from
        // second 12 on (second 11 had 30 ms): 7 s.
        assertThat(RescaleCommand.resultLine(new RescaleCommand.Op("echo", 1, 5, Map.of()), timeline.subList(0, 9), 10))
                .contains("savepoint_ms=failed", "gap_ms=none");
        assertThat(RescaleCommand.resultLine(new RescaleCommand.Op("echo", 1, 2, Map.of()), timeline.subList(0, 4), 5))
                .as("a rescale that never shows has no gap").contains("downtime_ms=0 gap_ms=0");
    }
}
