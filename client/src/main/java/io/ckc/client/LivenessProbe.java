package io.ckc.client;

/**
 * Whether a node's gateway is still there. An idle node that heard nothing past the keepalive probes
 * its gateway with a ping, three times until the silence timeout, so one lost ping or pong does not
 * end the session. A node with frames waiting for acknowledgement does not wait that long: once it
 * has waited for an acknowledgement with nothing heard, it probes every {@code unansweredProbeMs}, and
 * after three unanswered probes the gateway counts as gone. Any frame from the gateway answers.
 * <p>
 * The wait for the acknowledgement is {@code unansweredProbeMs}, or the session's round-trip timeout
 * where that is longer, up to four times {@code unansweredProbeMs}: the gateway acknowledges once Kafka
 * has the message, so a slow core is not taken for a dead gateway. The probes do not wait longer: the
 * gateway answers a ping itself, at once, whatever Kafka does. When they waited the acknowledgements'
 * timeout too, a node gave its dead gateway up four times 1 s after its next send on slow days (the
 * timeout at its cap), 7.1-7.3 s after a kill where the goal is 5 s (perf faults, 2026-12-02); pongs
 * measured as sessions began did no better (taken in reconnect storms, they stretched the probes alike).
 * A path whose pongs take longer than three probes (750 ms by default) needs a longer
 * {@code unansweredProbeMs}.
 */
final class LivenessProbe {

    /** What a check found. */
    enum Verdict { ALIVE, PROBE, SILENT }

    static final int PROBES = 3;
    static final int MAX_INTERVAL_FACTOR = 4;

    private final long keepaliveMs;
    private final long silenceTimeoutMs;
    private final long unansweredProbeMs;
    private long lastHeardMs;
    private long lastProbeMs = Long.MIN_VALUE / 2; // never
    private int unanswered;
    /** Since when the node has waited for an acknowledgement; -1 while it waits for none. */
    private long awaitingSinceMs = -1;

    LivenessProbe(long keepaliveMs, long silenceTimeoutMs, long unansweredProbeMs) {
        this.keepaliveMs = keepaliveMs;
        this.silenceTimeoutMs = silenceTimeoutMs;
        this.unansweredProbeMs = unansweredProbeMs;
    }

    /** A frame of the session came from the gateway. */
    void heard(long nowMs) {
        lastHeardMs = nowMs;
        unanswered = 0;
    }

    /**
     * Why probe even while the node sends: its frames may wait behind the socket's congestion window,
     * or be shed there, and draw no answer; a ping leaves at once, and its pong shows the gateway
     * alive. Sending alone once kept overloaded nodes from probing: 1,035 of 2,000 gave up a live
     * session as silent in a 3x overload (perf/README.md, 2026-11-24). A PROBE verdict counts as the
     * probe sent.
     *
     * @param awaiting whether the node has frames the gateway has not acknowledged
     */
    Verdict check(long nowMs, boolean awaiting) {
        return check(nowMs, awaiting, 0);
    }

    /**
     * @param roundTripTimeoutMs how long an acknowledgement may take on the session's path now (0: not known yet)
     */
    Verdict check(long nowMs, boolean awaiting, long roundTripTimeoutMs) {
        long ackWait = Math.min(Math.max(unansweredProbeMs, roundTripTimeoutMs), MAX_INTERVAL_FACTOR * unansweredProbeMs);
        long silent = nowMs - lastHeardMs;
        if (silent > silenceTimeoutMs) {
            return Verdict.SILENT;
        }
        if (!awaiting) {
            awaitingSinceMs = -1;
        } else if (awaitingSinceMs < 0) {
            awaitingSinceMs = nowMs;
        }
        // Quiet since the node began to wait: a node that sends once in a while heard nothing between its messages,
        // and must not probe with each one before its acknowledgement had time to come.
        if (awaiting && nowMs - Math.max(lastHeardMs, awaitingSinceMs) > ackWait) {
            if (nowMs - lastProbeMs < unansweredProbeMs) {
                return Verdict.ALIVE;
            }
            return unanswered >= PROBES ? Verdict.SILENT : probe(nowMs);
        }
        if (silent > keepaliveMs && nowMs - lastProbeMs >= idleProbeIntervalMs()) {
            return probe(nowMs);
        }
        return Verdict.ALIVE;
    }

    private Verdict probe(long nowMs) {
        lastProbeMs = nowMs;
        unanswered++;
        return Verdict.PROBE;
    }

    private long idleProbeIntervalMs() {
        return Math.max(1, (silenceTimeoutMs - keepaliveMs) / PROBES);
    }
}
