package io.ckc.protocol.mrudp;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Waits that grow with each failed try and carry random jitter, so that many nodes that failed
 * together do not all try again in the same instant (retransmissions, connects, reconnects).
 */
public final class Backoff {

    private Backoff() {
    }

    /** {@code baseMs · 2^(attempt-1)}, at most {@code capMs}; attempt 1 is the first wait. */
    public static long exponential(long baseMs, int attempt, long capMs) {
        int doublings = Math.max(0, Math.min(attempt - 1, 30));
        long grown = baseMs << doublings;
        return grown < 0 ? capMs : Math.min(grown, capMs);
    }

    /** {@code waitMs} stretched by a random share in {@code [0, jitter)}: never shorter, on average {@code jitter/2} longer. */
    public static long jittered(long waitMs, double jitter) {
        if (jitter <= 0 || waitMs <= 0) {
            return waitMs;
        }
        return waitMs + (long) (waitMs * jitter * ThreadLocalRandom.current().nextDouble());
    }
}
