package io.ckc.protocol.mrudp;

import java.time.Duration;

/**
 * Retransmission and window settings of a {@link ReliableSession}.
 *
 * @param initialRetransmitMs first retransmission timeout; doubled after each retry (exponential backoff)
 * @param maxRetransmitMs upper bound of the backed-off timeout
 * @param maxRetries retransmissions of one frame before the connection counts as broken
 * @param sendWindow frames in flight before further sends are queued
 * @param receiveWindow out-of-order frames buffered ahead of the next expected one
 */
public record ReliabilityConfig(long initialRetransmitMs, long maxRetransmitMs, int maxRetries, int sendWindow,
                                int receiveWindow) {

    public static final ReliabilityConfig DEFAULT = new ReliabilityConfig(500, 4_000, 8, 64, 256);

    public ReliabilityConfig {
        if (initialRetransmitMs <= 0 || maxRetransmitMs < initialRetransmitMs || maxRetries < 0 || sendWindow <= 0
                || receiveWindow <= 0) {
            throw new IllegalArgumentException("invalid reliability settings: " + this);
        }
    }

    /** How long a frame may go unacknowledged before the connection is declared broken. */
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
