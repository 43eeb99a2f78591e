package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TrendTest {

    private static double[] minutes(int n) {
        double[] t = new double[n];
        for (int i = 0; i < n; i++) {
            t[i] = i + 1;
        }
        return t;
    }

    @Test
    void aSteadyLeakGrowsAndItsSlopeIsPerHour() {
        double[] t = minutes(30);
        double[] heap = new double[30];
        Random noise = new Random(1);
        for (int i = 0; i < 30; i++) {
            heap[i] = 100 + 0.5 * t[i] + noise.nextGaussian(); // 0.5 MB a minute: 30 MB an hour
        }
        Trend trend = Trend.of(t, heap);
        assertThat(trend.perHour()).isCloseTo(30, within(3.0));
        assertThat(trend.ciPerHour()).isPositive().isLessThan(10);
        assertThat(trend.grows()).isTrue();
        assertThat(trend.samples()).isEqualTo(30);
    }

    @Test
    void noiseAroundALevelDoesNotGrow() {
        double[] t = minutes(30);
        double[] heap = new double[30];
        Random noise = new Random(2);
        for (int i = 0; i < 30; i++) {
            heap[i] = 100 + 5 * noise.nextGaussian();
        }
        Trend trend = Trend.of(t, heap);
        assertThat(trend.grows()).isFalse();
        assertThat(Math.abs(trend.perHour())).isLessThanOrEqualTo(trend.ciPerHour());
    }

    @Test
    void tooFewSamplesSayNothing() {
        Trend two = Trend.of(new double[] {1, 2}, new double[] {1, 5});
        assertThat(two.ciPerHour()).isNaN();
        assertThat(two.grows()).isFalse();
        assertThat(Trend.of(new double[] {1, 2, 3}, new double[] {1, Double.NaN, 3}).samples()).isEqualTo(2);
    }
}
