package io.ckc.protocol.mrudp;

/**
 * How many new data frames all sessions of one socket may have unacknowledged at once, the way TCP
 * bounds a connection (RFC 5681): the limit starts small, doubles each round trip while every frame
 * is acknowledged in time (slow start), then grows by one frame per window's worth of
 * acknowledgements, and halves when a frame's retransmission timer fires, at most once per
 * retransmission timeout (one stall times out many frames at once; it is one signal, not many).
 * Frames beyond the limit wait in their session's queue. Why per socket and not per session: a fleet
 * or a gateway shard multiplexes thousands of sessions on one socket, and each is sent little; only
 * the sum tells that the peer or the path is saturated. Used from the socket's one thread.
 */
public final class CongestionWindow {

    private final int minimum;
    private final int maximum;
    private double limit;
    private double slowStartThreshold;
    private int inFlight;
    private long recoveryUntilMs = Long.MIN_VALUE;
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

    /** A frame left the window: acknowledged ({@code grow}: in time, on its first transmission) or dropped with its session. */
    public void release(boolean grow) {
        if (inFlight > 0) {
            inFlight--;
        }
        if (grow && limit < maximum) {
            limit = Math.min(maximum, limit < slowStartThreshold ? limit + 1 : limit + 1 / limit);
        }
    }

    /** A frame's retransmission timer fired: the peer or the path is saturated. */
    public void timedOut(long now, long retransmitTimeoutMs) {
        if (now < recoveryUntilMs) {
            return;
        }
        slowStartThreshold = Math.max(minimum, limit / 2);
        limit = slowStartThreshold;
        recoveryUntilMs = now + retransmitTimeoutMs;
        reductions++;
    }

    public int limit() {
        return (int) limit;
    }

    public int inFlight() {
        return inFlight;
    }

    /** How often the limit was halved. */
    public long reductions() {
        return reductions;
    }
}
