package io.ckc.client;

import io.ckc.protocol.mrudp.RoundTripEstimator;

/**
 * Whether a node's gateway is still there. An idle node that heard nothing past the keepalive probes
 * its gateway with a ping, three times until the silence timeout, so one lost ping or pong does not
 * end the session. A node with frames waiting for acknowledgement does not wait that long: once it
 * has waited for an acknowledgement with nothing heard, it probes, and after three unanswered probes
 * the gateway counts as gone. Any frame from the gateway answers.
 * <p>
 * Two waits, each at least {@code unansweredProbeMs} and at most four times it. The wait for an
 * acknowledgement follows the session's round-trip timeout: the gateway acknowledges once Kafka has
 * the message, so a slow core is not taken for a dead gateway. The wait for a probe's answer follows
 * the round trip of the pings this session's gateway answered (the node pings once as the session
 * begins), or is the wait for an acknowledgement until a pong came: the gateway answers a ping
 * itself, at once, whatever Kafka does. Why apart: with one wait, the timeout of acknowledgements slowed by the core (after a
 * broker restart, or on a slow day) stretched the probes too, to four times 1 s after the frame the
 * dead gateway left unanswered (perf faults, 2026-12-02), where the probes alone take three times
 * 250 ms.
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
    /** The round trip of the pings the session's gateway answered. */
    private RoundTripEstimator probeRoundTrip = new RoundTripEstimator();

    LivenessProbe(long keepaliveMs, long silenceTimeoutMs, long unansweredProbeMs) {
        this.keepaliveMs = keepaliveMs;
        this.silenceTimeoutMs = silenceTimeoutMs;
        this.unansweredProbeMs = unansweredProbeMs;
    }

    /** A session began, with a gateway whose answers to probes are not known yet. */
    void sessionStarted(long nowMs) {
        probeRoundTrip = new RoundTripEstimator();
        heard(nowMs);
    }

    /** A frame of the session came from the gateway. */
    void heard(long nowMs) {
        lastHeardMs = nowMs;
        unanswered = 0;
    }

    /** The gateway answered a ping of this node after {@code roundTripMs}: a sample of how long a probe's answer takes. */
    void pongAfter(long roundTripMs) {
        if (roundTripMs >= 0 && roundTripMs <= silenceTimeoutMs) { // a wall clock that jumped gives no sample
            probeRoundTrip.sample(roundTripMs);
        }
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
        long ackWait = bounded(roundTripTimeoutMs);
        long probeTimeoutMs = probeRoundTrip.timeoutMs();
        long probeWait = probeTimeoutMs > 0 ? bounded(probeTimeoutMs) : ackWait; // no pong yet: as long as an ack
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
            if (nowMs - lastProbeMs < probeWait) {
                return Verdict.ALIVE;
            }
            return unanswered >= PROBES ? Verdict.SILENT : probe(nowMs);
        }
        if (silent > keepaliveMs && nowMs - lastProbeMs >= idleProbeIntervalMs()) {
            return probe(nowMs);
        }
        return Verdict.ALIVE;
    }

    private long bounded(long timeoutMs) {
        return Math.min(Math.max(unansweredProbeMs, timeoutMs), MAX_INTERVAL_FACTOR * unansweredProbeMs);
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
