package io.ckc.protocol.records;

/**
 * Latency statistics of one gateway's ping window (paper section 5.4), on {@code ckc.gw.stats} keyed
 * by gateway id. Latency is the time from ping to pong, in milliseconds; the variance is the
 * population variance. Every latency field is null for a window in which no pong arrived; the ping
 * rate is null when no node was pinged.
 *
 * @param connected nodes connected when the window closed
 * @param pinged nodes pinged when the window opened and still connected at its close
 * @param answered nodes whose pong arrived inside the window
 * @param pingRate answered / pinged
 * @param complete false when parts of the window's report never arrived
 */
public record ConnectionStatistics(String gatewayId, long pingSentAtMicros, long windowMs, int connected, int pinged,
                                   int answered,
                                   Double pingRate, Double meanMs, Double stdDevMs, Double varianceMs2,
                                   Double medianMs, Double minMs, Double maxMs, boolean complete) {
}
