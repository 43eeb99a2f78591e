package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ScheduleTest {

    private static final long GAP = 20_000_000_000L; // 20 s: 3 messages a minute

    @Test
    void poissonArrivalsAreExponentialFromTheStartSoTheLoadIsLevel() {
        Random random = new Random(7);
        double firstMean = LongStream.range(0, 100_000)
                .map(i -> Schedule.gap(Schedule.Arrivals.POISSON, random, GAP, true)).average().orElseThrow();
        double laterMean = LongStream.range(0, 100_000)
                .map(i -> Schedule.gap(Schedule.Arrivals.POISSON, random, GAP, false)).average().orElseThrow();
        // A uniform first phase would average GAP / 2 and overshoot the rate until a gap had passed.
        assertThat(firstMean / GAP).isCloseTo(1.0, within(0.02));
        assertThat(laterMean / GAP).isCloseTo(1.0, within(0.02));
    }

    @Test
    void constantArrivalsStartAtAUniformPhaseThenKeepTheGap() {
        Random random = new Random(7);
        double firstMean = LongStream.range(0, 100_000)
                .map(i -> Schedule.gap(Schedule.Arrivals.CONSTANT, random, GAP, true)).average().orElseThrow();
        assertThat(firstMean / GAP).isCloseTo(0.5, within(0.01));
        assertThat(Schedule.gap(Schedule.Arrivals.CONSTANT, random, GAP, false)).isEqualTo(GAP);
    }
}
