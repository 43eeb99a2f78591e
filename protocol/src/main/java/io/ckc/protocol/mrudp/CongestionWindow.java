package io.ckc.protocol.mrudp;

/**
 * How many new data frames all sessions of one socket may have unacknowledged at once: the window that N
 * sessions would have together if each had a TCP connection of its own (RFC 5681 per session, summed as MulTCP
 * does, Crowcroft and Oechslin, 1998). The limit starts small and doubles each round trip while every frame is
 * acknowledged in time (slow start); then each acknowledgement grows it by N / limit frames, N the sessions with
 * frames to send, so a window's worth of acknowledgements grows it by a frame per session. When one session
 * sees congestion (a frame's retransmission timer fires, or the peer refuses a frame as busy), that session's
 * share, limit / N, halves, at most once per the session's retransmission timeout (one stall times out many of
 * its frames; it is one signal). A stall of the whole path signals in every session: the limit falls to about
 * 0.6 of itself per timeout. With one session it is TCP's rule. Frames beyond the limit wait in their
 * session's queue.
 *
 * <p>Why per socket and not per session: a fleet or a gateway shard multiplexes thousands of sessions on one
 * socket, and each is sent little; only the sum tells that the peer or the path is saturated. Why the shares:
 * a window that halved on any one session's timeout and regrew by one frame per round trip for all sessions
 * together could not hold 1,000 nodes' deliveries through a loss here and there. On 2026-11-28 a gateway
 * shard's window fell from 16,384 frames to its floor within seconds of its socket dropping datagrams at
 * 4,000 msg/s, and stayed within 128-700 frames for minutes, a few dozen deliveries a second, while its
 * nodes' messages queued for tens of seconds. Used from the socket's one thread.
 */
public final class CongestionWindow {

    private final int minimum;
    private final int maximum;
    private double limit;
    private double slowStartThreshold;
    private int inFlight;
    /** Sessions with frames in flight or waiting for a slot: the flows the window carries now. */
    private int flows;
    private long reductions;

    /**
     * @param initial frames allowed in flight at first
     * @param minimum the limit never falls below this: a stalled peer still gets frames to answer
     * @param maximum the limit never grows above this
     */
    public CongestionWindow(int initial, int minimum, int maximum) {
        if (minimum <= 0 || initial < minimum || maximum < initial) {
            throw new IllegalArgumentException(
                    "need 0 < minimum <= initial <= maximum, got " + minimum + ", " + initial + ", " + maximum);
        }
        this.minimum = minimum;
        this.maximum = maximum;
        this.limit = initial;
        this.slowStartThreshold = maximum;
    }

    /**
     * A window for one socket of a client or a gateway shard: 256 frames at first, 64 to 8,192. Why the
     * floor is one session's send window ({@link ReliabilityConfig#DEFAULT}): a device with one
     * session on its socket keeps what it had without a window, however lossy its radio link (a loss
     * on a radio link is no sign of saturation, and halving down to a few frames starved it); the
     * window bounds what many sessions of one socket send together.
     */
    public static CongestionWindow forSocket() {
        return new CongestionWindow(256, ReliabilityConfig.DEFAULT.sendWindow(), 8_192);
    }

    /** Takes a slot for a new frame, if the limit allows one. */
    public boolean tryAcquire() {
        if (inFlight >= (int) limit) {
            return false;
        }
        inFlight++;
        return true;
    }

    /** Frames already in flight that join the window (a session moved to this socket); may exceed the limit for a while. */
    public void adopt(int frames) {
        inFlight += frames;
    }

    /**
     * A frame left the window: acknowledged ({@code grow}: in time, on its first transmission) or dropped with its
     * session. Past slow start, an acknowledgement grows the limit by a share of a frame for each session with frames
     * to send, so a window's worth of them grows it by one frame per session (by one frame per acknowledgement at
     * most).
     */
    public void release(boolean grow) {
        if (inFlight > 0) {
            inFlight--;
        }
        if (grow && limit < maximum) {
            double avoidance = Math.min(1, Math.max(1, flows) / limit);
            limit = Math.min(maximum, limit < slowStartThreshold ? limit + 1 : limit + avoidance);
        }
    }

    /** A session has frames to send (in flight or waiting) where it had none. */
    public void flowStarted() {
        flows++;
    }

    /** A session has no frame in flight or waiting any more. */
    public void flowEnded() {
        if (flows > 0) {
            flows--;
        }
    }

    /** Sessions with frames in flight or waiting. */
    public int flows() {
        return flows;
    }

    /**
     * A session of this window saw congestion: a frame's retransmission timer fired, or the peer refused a frame as
     * busy. Its share of the limit halves: the limit falls by limit / (2 N). The session calls this at most once per
     * its retransmission timeout ({@link ReliableSession}).
     */
    public void congested() {
        limit = Math.max(minimum, limit - limit / (2.0 * Math.max(1, flows)));
        slowStartThreshold = limit;
        reductions++;
    }

    public int limit() {
        return (int) limit;
    }

    public int inFlight() {
        return inFlight;
    }

    /** How often a session's share was halved. */
    public long reductions() {
        return reductions;
    }
}
