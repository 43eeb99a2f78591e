package io.ckc.perf;

import org.junit.jupiter.api.Test;

import static io.ckc.perf.ProbeCommand.WarmUp.GAVE_UP;
import static io.ckc.perf.ProbeCommand.WarmUp.GOING_ON;
import static io.ckc.perf.ProbeCommand.WarmUp.WARM;
import static io.ckc.perf.ProbeCommand.warmUpAfter;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * When {@code ./ckc up}'s warm-up ends: after its minimum, once two windows in a row answer fast, or at its
 * maximum.
 */
class ProbeWarmUpTest {

    private static final double FIRST = Double.POSITIVE_INFINITY;

    @Test
    void twoFastWindowsEndTheWarmUpOnlyAfterTheMinimum() {
        assertThat(warmUpAfter(10, 20, 30, 20, 100, 120)).as("fast, but before the minimum").isEqualTo(GOING_ON);
        assertThat(warmUpAfter(22, 20, 30, 20, 100, 120)).isEqualTo(WARM);
    }

    @Test
    void oneFastWindowAfterASlowOneIsNotEnough() {
        assertThat(warmUpAfter(48, 93, 112, 20, 100, 120)).as("2026-11-24's last two windows").isEqualTo(GOING_ON);
        assertThat(warmUpAfter(53, 80, 93, 20, 100, 120)).isEqualTo(WARM);
        assertThat(warmUpAfter(25, 20, FIRST, 20, 100, 120)).as("the first window has none before it").isEqualTo(GOING_ON);
    }

    @Test
    void aSlowWindowAsksForAnotherUntilTheMaximum() {
        assertThat(warmUpAfter(60, 150, 50, 20, 100, 120)).isEqualTo(GOING_ON);
        assertThat(warmUpAfter(100, 100, 50, 20, 100, 120)).as("the target is a bound: under it, not at it").isEqualTo(GOING_ON);
        assertThat(warmUpAfter(121, 150, 50, 20, 100, 120)).isEqualTo(GAVE_UP);
        assertThat(warmUpAfter(121, 50, 60, 20, 100, 120)).as("fast at the last two windows still counts").isEqualTo(WARM);
    }

    @Test
    void withoutATargetTheMinimumIsTheLength() {
        assertThat(warmUpAfter(19, 5_000, 5_000, 20, 0, 120)).isEqualTo(GOING_ON);
        assertThat(warmUpAfter(21, 5_000, FIRST, 20, 0, 120)).isEqualTo(WARM);
    }
}
