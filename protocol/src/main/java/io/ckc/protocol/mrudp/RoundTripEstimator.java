package io.ckc.protocol.mrudp;

/**
 * A path's round trip as RFC 6298 estimates it: the smoothed round trip and its variation, each sample
 * weighing 1/8 and 1/4, and the timeout an answer may take, the smoothed round trip plus four times the
 * variation (never less than the clock's granularity). Not thread-safe.
 */
public final class RoundTripEstimator {

    /** Clock granularity of the callers' ticks (RFC 6298's G). */
    static final long GRANULARITY_MS = 10;

    /** Smoothed round trip and its variation in ms; negative until the first sample. */
    private double srttMs = -1;
    private double rttVarMs;

    public void sample(long sampleMs) {
        if (srttMs < 0) {
            srttMs = sampleMs;
            rttVarMs = sampleMs / 2.0;
        } else {
            rttVarMs = 0.75 * rttVarMs + 0.25 * Math.abs(srttMs - sampleMs);
            srttMs = 0.875 * srttMs + 0.125 * sampleMs;
        }
    }

    /** How long an answer may take on this path: the smoothed round trip and four times its variation; 0 before the first sample. */
    public long timeoutMs() {
        return srttMs < 0 ? 0 : (long) Math.ceil(srttMs + Math.max(GRANULARITY_MS, 4 * rttVarMs));
    }
}
