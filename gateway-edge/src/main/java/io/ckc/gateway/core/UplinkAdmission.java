package io.ckc.gateway.core;

import java.util.Arrays;

/**
 * Admission of nodes' uplink messages by the age of the deliveries the gateway reads: active queue
 * management for the whole stack behind the gateway, after PIE (RFC 8033). Why: the gateway
 * acknowledges a message once Kafka has it, so a node's congestion window never sees that the jobs
 * behind Kafka are behind; past the stack's limit a backlog then built up in Kafka for minutes
 * (round trips of a minute, and long after the overload ended). A delivery's Kafka timestamp is that
 * of the message it answers (the jobs keep record timestamps), so its age when the gateway reads it
 * is how far behind the path through Kafka and the jobs is. While the median age of a window stays
 * above the target for longer than the burst allowance, the gateway refuses each uplink message with
 * a probability that PIE's controller adjusts, so the backlog stays near the target and the excess is
 * turned away at the edge (BUSY: the node sends it again a little later, or hands it back to its
 * application as unsent if that sheds late messages) instead of queued in Kafka. Short stalls (a
 * checkpoint, a rescale's restart) stay within the allowance and refuse nothing, and a backlog whose
 * age falls from one window to the next (the stack catching up after an outage) raises the probability
 * no further.
 *
 * <p>Ages are recorded and the probability updated on the core consumer's thread; the shards' loops
 * read the probability.
 */
public final class UplinkAdmission {

    private static final int SAMPLES = 4_096;
    /** RFC 8033's gains per update, for delays in seconds. */
    private static final double ALPHA = 0.125;
    private static final double BETA = 1.25;

    private final long targetMs;
    private final long burstAllowanceMs;
    private final long updateMs;
    /** RFC 8033 raises a probability of 10% or more by at most 2% per 15 ms update: the same per second here. */
    private final double maxStep;
    private final long[] ages = new long[SAMPLES];
    private final long[] sorted = new long[SAMPLES];
    private int count;
    private long nextUpdateMs = Long.MIN_VALUE;
    /** Since when every window's median age was above the target; Long.MIN_VALUE while it is not. */
    private long overSinceMs = Long.MIN_VALUE;
    private double previousAgeS;
    private long latestMedianMs;
    private volatile double refuseProbability;

    /**
     * @param targetMs the median delivery age the controller steers to; 0 turns admission control off
     * @param burstAllowanceMs how long the median may stay above the target before anything is refused
     * @param updateMs how often the probability is updated, each time from the ages of the window since
     */
    public UplinkAdmission(long targetMs, long burstAllowanceMs, long updateMs) {
        if (targetMs < 0 || burstAllowanceMs < 0 || updateMs <= 0) {
            throw new IllegalArgumentException("need target >= 0, burst allowance >= 0, update > 0");
        }
        this.targetMs = targetMs;
        this.burstAllowanceMs = burstAllowanceMs;
        this.updateMs = updateMs;
        this.maxStep = 0.02 * Math.max(1, updateMs / 15.0);
    }

    /** The age of one delivery read from Kafka (now minus its record timestamp), in ms. */
    public void age(long ageMs) {
        if (targetMs == 0) {
            return; // off: no window ever resets the count
        }
        ages[count++ % SAMPLES] = Math.max(0, ageMs);
    }

    /** Updates the probability if a window has passed; call it after every poll. */
    public void update(long nowMs) {
        if (targetMs == 0) {
            return;
        }
        if (nextUpdateMs == Long.MIN_VALUE) {
            nextUpdateMs = nowMs + updateMs;
            return;
        }
        if (nowMs < nextUpdateMs) {
            return;
        }
        nextUpdateMs = nowMs + updateMs;
        int n = Math.min(count, SAMPLES);
        count = 0;
        if (n == 0) { // nothing delivered: no sign either way; what was refused is slowly let through again
            refuseProbability *= 0.98;
            return;
        }
        System.arraycopy(ages, 0, sorted, 0, n);
        Arrays.sort(sorted, 0, n);
        latestMedianMs = sorted[n / 2];
        double ageS = latestMedianMs / 1000.0;
        if (latestMedianMs <= targetMs) {
            overSinceMs = Long.MIN_VALUE;
        } else if (overSinceMs == Long.MIN_VALUE) {
            overSinceMs = nowMs;
        }
        boolean allowanceSpent = overSinceMs != Long.MIN_VALUE && nowMs - overSinceMs >= burstAllowanceMs;
        double p = refuseProbability;
        if (p > 0 || allowanceSpent) {
            double delta = ALPHA * (ageS - targetMs / 1000.0) + BETA * (ageS - previousAgeS);
            if (ageS < previousAgeS) {
                // Why: a backlog that drains is one the stack is catching up on (after a broker restart, a
                // TaskManager's recovery), not an offered load above its capacity; refusing more then turns an
                // outage that is over into messages handed back. Only an age that holds or grows raises it.
                delta = Math.min(delta, 0);
            }
            delta *= scale(p);
            if (p >= 0.1 && delta > maxStep) {
                delta = maxStep;
            }
            p = Math.max(0, Math.min(1, p + delta));
            if (latestMedianMs < targetMs / 2 && previousAgeS * 1000 < targetMs / 2.0) {
                p *= 0.98; // well under the target twice in a row: decay
            }
            refuseProbability = p < 1e-6 ? 0 : p;
        }
        previousAgeS = ageS;
    }

    /** Whether to accept one message, given a uniform random number in [0, 1). */
    public boolean admit(double random) {
        return random >= refuseProbability;
    }

    /** The share of uplink messages refused now. */
    public double refuseProbability() {
        return refuseProbability;
    }

    /** The median delivery age of the latest window with deliveries, in ms. */
    public long medianAgeMs() {
        return latestMedianMs;
    }

    /** RFC 8033's auto-tuning: small probabilities move in small steps. */
    private static double scale(double p) {
        if (p < 0.000001) {
            return 1 / 2048.0;
        } else if (p < 0.00001) {
            return 1 / 512.0;
        } else if (p < 0.0001) {
            return 1 / 128.0;
        } else if (p < 0.001) {
            return 1 / 32.0;
        } else if (p < 0.01) {
            return 1 / 8.0;
        } else if (p < 0.1) {
            return 1 / 2.0;
        }
        return 1;
    }

}
