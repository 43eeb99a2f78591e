package io.ckc.gateway.core;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.local.SynchronizationStrategy;

import java.time.Duration;

/**
 * The gateway's token buckets (Bucket4j), made in one place: admission and every rate limit use them, on the clock
 * given ({@link TimeMeter#SYSTEM_NANOTIME}, monotonic like {@link SessionShard#nowMs()}; a test's own).
 */
final class TokenBuckets {

    private TokenBuckets() {
    }

    /**
     * A bucket refilled with {@code tokens} every {@code period}, smoothly, holding {@code burst} at most (full at
     * first). Unsynchronized: for state confined to one event loop.
     */
    static Bucket confined(long tokens, Duration period, long burst, TimeMeter clock) {
        return build(tokens, period, burst, SynchronizationStrategy.NONE, clock);
    }

    /** The same, lock-free, for a bucket that several event loops take from. */
    static Bucket shared(long tokens, Duration period, long burst, TimeMeter clock) {
        return build(tokens, period, burst, SynchronizationStrategy.LOCK_FREE, clock);
    }

    private static Bucket build(long tokens, Duration period, long burst, SynchronizationStrategy synchronization,
                                TimeMeter clock) {
        return Bucket.builder().addLimit(limit -> limit.capacity(burst).refillGreedy(tokens, period))
                .withSynchronizationStrategy(synchronization).withCustomTimePrecision(clock).build();
    }
}
