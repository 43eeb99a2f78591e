package io.ckc.protocol.mrudp;

import java.time.Duration;

/**
 * Retransmission and window settings of a {@link ReliableSession}.
 *
 * @param initialRetransmitMs the retransmission timeout until the round trip is measured, and its floor after:
 *                            the timeout follows the measured round trip (RFC 6298) and doubles after each retry
 * @param maxRetransmitMs upper bound of the timeout
 * @param maxRetries retransmissions of one frame before the connection counts as broken
 * @param sendWindow frames in flight before further sends are queued
 * @param receiveWindow out-of-order frames buffered ahead of the next expected one
 * @param jitter each timeout is stretched by a random share below this, so that frames sent together
 *               (a burst, or many nodes after one stall) are not all sent again together
 */
public record ReliabilityConfig(long initialRetransmitMs, long maxRetransmitMs, int maxRetries, int sendWindow,
                                int receiveWindow, double jitter) {

    public static final ReliabilityConfig DEFAULT = new ReliabilityConfig(500, 4_000, 8, 64, 256, 0.25);

    public ReliabilityConfig {
        if (initialRetransmitMs <= 0 || maxRetransmitMs < initialRetransmitMs || maxRetries < 0 || sendWindow <= 0
                || receiveWindow <= 0 || jitter < 0 || jitter > 1) {
            throw new IllegalArgumentException("invalid reliability settings: " + this);
        }
    }

    /** Settings without jitter: timeouts exactly as configured. */
    public ReliabilityConfig(long initialRetransmitMs, long maxRetransmitMs, int maxRetries, int sendWindow,
                             int receiveWindow) {
        this(initialRetransmitMs, maxRetransmitMs, maxRetries, sendWindow, receiveWindow, 0);
    }

    /** How long a frame may go unacknowledged before the connection is declared broken (before jitter, at the first timeout). */
    public Duration worstCaseGiveUp() {
        long total = 0;
        long timeout = initialRetransmitMs;
        for (int i = 0; i <= maxRetries; i++) {
            total += timeout;
            timeout = Math.min(timeout * 2, maxRetransmitMs);
        }
        return Duration.ofMillis(total);
    }
}
