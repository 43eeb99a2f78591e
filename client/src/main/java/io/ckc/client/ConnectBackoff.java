package io.ckc.client;

import io.ckc.protocol.mrudp.Backoff;

import java.util.concurrent.ThreadLocalRandom;

/**
 * When a node tries to connect next. Why backoff with jitter: a gateway that restarts, or stalls, finds all
 * its nodes connecting at once; spread out and slowing down, they let it admit them instead of drowning it.
 * A BUSY answer does not count toward giving the gateway up; each connection lost in a row without one that
 * was accepted waits longer before the next reconnect.
 */
final class ConnectBackoff {

    /** Connect retries and reconnects wait up to this share longer, at random. */
    static final double JITTER = 0.5;
    static final long MAX_CONNECT_RETRY_MS = 2_000;
    static final long MAX_RECONNECT_DELAY_MS = 30_000;
    static final long FAILOVER_SPREAD_MS = 250;

    private final long connectRetryMs;
    private final long reconnectDelayMs;
    private int attempts;
    private int busyRefusals;
    private int consecutiveLosses;
    private long nextAttemptMs;

    ConnectBackoff(long connectRetryMs, long reconnectDelayMs) {
        this.connectRetryMs = connectRetryMs;
        this.reconnectDelayMs = reconnectDelayMs;
    }

    /** A new session's connecting begins: no attempt made yet. */
    void begin() {
        attempts = 0;
        busyRefusals = 0;
    }

    /** A connect leaves now; the next one is due after a growing, jittered wait. */
    void attempted(long now) {
        attempts++;
        nextAttemptMs = now + Backoff.jittered(Backoff.exponential(connectRetryMs, attempts, MAX_CONNECT_RETRY_MS), JITTER);
    }

    /**
     * The gateway is alive but admits no new session now: the attempt does not count, and the next waits longer
     * each time, so the refused nodes come back spread out at the pace the gateway admits them.
     */
    void busy(long now) {
        busyRefusals++;
        attempts = Math.max(0, attempts - 1);
        nextAttemptMs = now + Backoff.jittered(Backoff.exponential(connectRetryMs, busyRefusals + 1, MAX_CONNECT_RETRY_MS),
                JITTER);
    }

    /** A session was accepted: the losses in a row start over. */
    void connected() {
        consecutiveLosses = 0;
    }

    /**
     * The connection was lost: the reconnect waits longer the more losses came in a row. The first one goes at once
     * ({@code promptly}) for a node that moves to another gateway because its own failed, or whose gateway answered
     * that it no longer holds the session (it restarted): spread over up to {@link #FAILOVER_SPREAD_MS} at random, so
     * that the nodes of one gateway do not all land in the same instant.
     */
    void lost(long now, boolean promptly) {
        consecutiveLosses++;
        if (promptly && consecutiveLosses == 1) {
            nextAttemptMs = now + (long) (ThreadLocalRandom.current().nextDouble() * FAILOVER_SPREAD_MS);
            return;
        }
        nextAttemptMs = now + Backoff.jittered(Backoff.exponential(reconnectDelayMs, consecutiveLosses,
                MAX_RECONNECT_DELAY_MS), JITTER);
    }

    int attempts() {
        return attempts;
    }

    boolean due(long now) {
        return now >= nextAttemptMs;
    }
}
