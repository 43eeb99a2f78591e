package io.ckc.perf;

import org.junit.jupiter.api.Test;

import static io.ckc.perf.ProbeCommand.WarmUp.GAVE_UP;
import static io.ckc.perf.ProbeCommand.WarmUp.GOING_ON;
import static io.ckc.perf.ProbeCommand.WarmUp.WARM;
import static io.ckc.perf.ProbeCommand.warmUpAfter;
import static org.assertj.core.api.Assertions.assertThat;

/** When {@code ./ckc up}'s warm-up ends: after its minimum, once a window answers fast, or at its maximum. */
class ProbeWarmUpTest {

    @Test
    void aFastWindowEndsTheWarmUpOnlyAfterTheMinimum() {
        assertThat(warmUpAfter(10, 20, 20, 100, 120)).as("fast, but before the minimum").isEqualTo(GOING_ON);
        assertThat(warmUpAfter(22, 20, 20, 100, 120)).isEqualTo(WARM);
    }

    @Test
    void aSlowWindowAsksForAnotherUntilTheMaximum() {
        assertThat(warmUpAfter(60, 150, 20, 100, 120)).isEqualTo(GOING_ON);
        assertThat(warmUpAfter(100, 100, 20, 100, 120)).as("the target is a bound: under it, not at it").isEqualTo(GOING_ON);
        assertThat(warmUpAfter(121, 150, 20, 100, 120)).isEqualTo(GAVE_UP);
        assertThat(warmUpAfter(121, 50, 20, 100, 120)).as("fast at the last window still counts").isEqualTo(WARM);
    }

    @Test
    void withoutATargetTheMinimumIsTheLength() {
        assertThat(warmUpAfter(19, 5_000, 20, 0, 120)).isEqualTo(GOING_ON);
        assertThat(warmUpAfter(21, 5_000, 20, 0, 120)).isEqualTo(WARM);
    }
}
