package io.ckc.client;

/**
 * Whether a node's gateway is still there. Past the keepalive without a frame from the gateway the
 * node probes it with a ping, three times until the silence timeout, so one lost ping or pong does not
 * end the session; past the silence timeout the gateway counts as gone.
 */
final class LivenessProbe {

    /** What a check found. */
    enum Verdict { ALIVE, PROBE, SILENT }

    private final long keepaliveMs;
    private final long silenceTimeoutMs;
    private long lastHeardMs;
    private long lastProbeMs;

    LivenessProbe(long keepaliveMs, long silenceTimeoutMs) {
        this.keepaliveMs = keepaliveMs;
        this.silenceTimeoutMs = silenceTimeoutMs;
    }

    /** A frame of the session came from the gateway. */
    void heard(long nowMs) {
        lastHeardMs = nowMs;
    }

    /**
     * Why probe even while the node sends: its frames may wait behind the socket's congestion window,
     * or be shed there, and draw no answer; a ping leaves at once, and its pong shows the gateway
     * alive. Sending alone once kept overloaded nodes from probing: 1,035 of 2,000 gave up a live
     * session as silent in a 3x overload (perf/README.md, 2026-11-24). A PROBE verdict counts as the
     * probe sent.
     */
    Verdict check(long nowMs) {
        long silent = nowMs - lastHeardMs;
        if (silent > silenceTimeoutMs) {
            return Verdict.SILENT;
        }
        if (silent > keepaliveMs && nowMs - lastProbeMs >= probeIntervalMs()) {
            lastProbeMs = nowMs;
            return Verdict.PROBE;
        }
        return Verdict.ALIVE;
    }

    private long probeIntervalMs() {
        return Math.max(1, (silenceTimeoutMs - keepaliveMs) / 3);
    }
}
