package io.ckc.jobs.poa;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PingReconfigurationTest {

    private final PingReconfiguration table =
            new PingReconfiguration(PingReconfiguration.parse("0-0.5:2,0.5-0.8:1.5,0.8-1:1"), 250, 4_000);

    @Test
    void eachPingRateFindsTheFactorOfItsInterval() {
        assertThat(table.factorFor(0.0)).isEqualTo(2.0);
        assertThat(table.factorFor(0.49)).isEqualTo(2.0);
        assertThat(table.factorFor(0.5)).isEqualTo(1.5);
        assertThat(table.factorFor(0.8)).isEqualTo(1.0);
        assertThat(table.factorFor(1.0)).isEqualTo(1.0);
    }

    @Test
    void theNewWindowStaysWithinTheBoundsAndTheInterval() {
        assertThat(table.nextWindowMs(1_000, 5_000, 0.3)).isEqualTo(2_000);
        assertThat(table.nextWindowMs(3_000, 5_000, 0.3)).isEqualTo(4_000);
        assertThat(table.nextWindowMs(3_000, 3_500, 0.3)).isEqualTo(3_500);
        assertThat(table.nextWindowMs(1_000, 5_000, 0.95)).isEqualTo(1_000);
        PingReconfiguration shrinking = new PingReconfiguration(PingReconfiguration.parse("0-1:0.1"), 250, 4_000);
        assertThat(shrinking.nextWindowMs(1_000, 5_000, 1.0)).isEqualTo(250);
    }

    @Test
    void aMalformedTableIsRefusedWithTheRowNamed() {
        assertThatThrownBy(() -> PingReconfiguration.parse("0-0.5=2"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0-0.5=2");
        assertThatThrownBy(() -> PingReconfiguration.parse("0.6-0.5:2"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from < to");
    }
}
