package io.ckc.jobs.poa;

import io.ckc.protocol.records.ConnectionStatistics;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class LatencyStatisticsTest {

    @Test
    void anOddWindowGivesExactStatisticsAndTheMiddleValueAsMedian() {
        // 2, 4, 4, 4, 5, 5, 7, 9 ms plus 1 ms: nine pongs, ten nodes connected.
        long[] micros = {4_000, 2_000, 4_000, 9_000, 4_000, 5_000, 5_000, 7_000, 1_000};
        ConnectionStatistics s = LatencyStatistics.of("gw-1", 100, 1_000, micros, 10, 10, true);
        assertThat(s.answered()).isEqualTo(9);
        assertThat(s.connected()).isEqualTo(10);
        assertThat(s.pingRate()).isEqualTo(0.9);
        assertThat(s.meanMs()).isCloseTo(41.0 / 9, within(1e-12));
        double variance = 0;
        for (long m : micros) {
            variance += Math.pow(m / 1000.0 - 41.0 / 9, 2);
        }
        variance /= 9;
        assertThat(s.varianceMs2()).isCloseTo(variance, within(1e-9));
        assertThat(s.stdDevMs()).isCloseTo(Math.sqrt(variance), within(1e-9));
        assertThat(s.medianMs()).isEqualTo(4.0);
        assertThat(s.minMs()).isEqualTo(1.0);
        assertThat(s.maxMs()).isEqualTo(9.0);
        assertThat(s.complete()).isTrue();
    }

    @Test
    void anEvenWindowTakesTheMeanOfTheTwoMiddleValuesAsMedian() {
        // The textbook set 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population variance 4, deviation 2.
        long[] micros = {9_000, 2_000, 4_000, 5_000, 4_000, 7_000, 4_000, 5_000};
        ConnectionStatistics s = LatencyStatistics.of("gw-1", 100, 1_000, micros, 8, 8, true);
        assertThat(s.meanMs()).isEqualTo(5.0);
        assertThat(s.varianceMs2()).isEqualTo(4.0);
        assertThat(s.stdDevMs()).isEqualTo(2.0);
        assertThat(s.medianMs()).isEqualTo(4.5);
        assertThat(s.pingRate()).isEqualTo(1.0);
    }

    @Test
    void aWindowWithoutPongsHasNoLatencyAndAZeroPingRate() {
        ConnectionStatistics s = LatencyStatistics.of("gw-1", 100, 1_000, new long[0], 5, 5, false);
        assertThat(s.answered()).isZero();
        assertThat(s.pingRate()).isEqualTo(0.0);
        assertThat(s.meanMs()).isNull();
        assertThat(s.medianMs()).isNull();
        assertThat(s.varianceMs2()).isNull();
        assertThat(s.minMs()).isNull();
        assertThat(s.maxMs()).isNull();
        assertThat(s.complete()).isFalse();
    }

    @Test
    void nodesThatConnectedAfterThePingLeftAreNotCountedAgainstThePingRate() {
        long[] micros = {2_000, 4_000, 6_000};
        ConnectionStatistics s = LatencyStatistics.of("gw-1", 100, 1_000, micros, 10, 4, true);
        assertThat(s.connected()).isEqualTo(10);
        assertThat(s.pinged()).isEqualTo(4);
        assertThat(s.pingRate()).isEqualTo(0.75);
    }

    @Test
    void aWindowWithoutNodesHasNoPingRate() {
        ConnectionStatistics s = LatencyStatistics.of("gw-1", 100, 1_000, new long[0], 0, 0, true);
        assertThat(s.pingRate()).isNull();
        assertThat(s.meanMs()).isNull();
    }
}
