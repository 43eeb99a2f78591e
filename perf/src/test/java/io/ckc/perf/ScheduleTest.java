package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

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

    @Test
    void aTimedScheduleEndsAtItsDurationEvenWhenFirstSendsWouldFallLater() {
        // One message a minute per node: most first sends fall long after the half second asked for.
        AtomicLong sent = new AtomicLong();
        long start = System.nanoTime();
        long[] lastSendAt = {start};
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> Schedule.runFor(50, 0.5, 1, Schedule.Arrivals.POISSON,
                (node, seq) -> lastSendAt[0] = System.nanoTime(), sent, () -> { }));
        assertThat(lastSendAt[0] - start).isLessThan(Duration.ofMillis(600).toNanos());
    }
}
