package io.ckc.client;

/**
 * Whether a node's gateway is still there. An idle node that heard nothing past the keepalive probes
 * its gateway with a ping, three times until the silence timeout, so one lost ping or pong does not
 * end the session. A node with frames waiting for acknowledgement does not wait that long: once it
 * has waited a probe interval with nothing heard, it probes every interval, and after three
 * unanswered probes the gateway counts as gone, so a node whose gateway died moves on four intervals
 * after the first frame the dead gateway left unanswered. The interval is {@code unansweredProbeMs},
 * or the path's round-trip timeout where that is longer (a slow link is not taken for a dead gateway),
 * but never more than four times {@code unansweredProbeMs}. Any frame from the gateway answers.
 * <p>A node with no other gateway to go to is patient: leaving gains it nothing then (the new session would be on the
 * same gateway), and a gateway paused for two seconds (a stalled process, a CPU-starved machine) once lost every one
 * of its 2,000 nodes that way, each coming back through a handshake into a gateway still behind (perf/README,
 * 2026-12-05). Its interval starts at {@value #PATIENT_INTERVAL_MS} ms at least and doubles with each unanswered probe,
 * so it gives up after 15 intervals of silence (7.5 s) instead of 4.
 */
final class LivenessProbe {

    /** What a check found. */
    enum Verdict { ALIVE, PROBE, SILENT }

    static final int PROBES = 3;
    static final int MAX_INTERVAL_FACTOR = 4;
    static final long PATIENT_INTERVAL_MS = 500;

    private final long keepaliveMs;
    private final long silenceTimeoutMs;
    private final long unansweredProbeMs;
    private long lastHeardMs;
    private long lastProbeMs;
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
     * @param roundTripTimeoutMs how long an answer may take on the session's path now (0: not known yet)
     */
    Verdict check(long nowMs, boolean awaiting, long roundTripTimeoutMs) {
        return check(nowMs, awaiting, roundTripTimeoutMs, true);
    }

    /**
     * @param elsewhere whether the node has another gateway to go to; without one it probes with backoff
     */
    Verdict check(long nowMs, boolean awaiting, long roundTripTimeoutMs, boolean elsewhere) {
        long interval = Math.min(Math.max(unansweredProbeMs, roundTripTimeoutMs), MAX_INTERVAL_FACTOR * unansweredProbeMs);
        if (!elsewhere) {
            interval = Math.max(interval, PATIENT_INTERVAL_MS) << Math.min(unanswered, PROBES);
        }
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
        if (awaiting && nowMs - Math.max(lastHeardMs, awaitingSinceMs) > interval) {
            if (nowMs - lastProbeMs < interval) {
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
