package io.ckc.gateway.core;

import io.netty.channel.EventLoop;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One shard's part of the ping windows (paper section 4.1): which serving nodes a window pings, the
 * pacing of those pings, the pongs it takes, and what the shard hands over at the close. Confined to
 * the shard's event loop; it reads the shard's sessions and changes none.
 */
final class ShardPings {

    /**
     * A window's pings leave in slices this far apart, spread over the first half of the window, and
     * never fewer than {@link #PING_BURST} per slice. Why: a hundred thousand pings at once come back
     * as a hundred thousand pongs at once, more than the socket's receive buffer holds; the pongs
     * dropped there are a node's only sign of life, and its session timed out.
     */
    static final long PING_SLICE_MS = 5;
    static final int PING_BURST = 1_000;

    private final EventLoop loop;
    private final GatewayMetrics metrics;
    private final ShardSessions sessions;
    private PingWindow window;

    ShardPings(EventLoop loop, GatewayMetrics metrics, ShardSessions sessions) {
        this.loop = loop;
        this.metrics = metrics;
        this.sessions = sessions;
    }

    /**
     * Opens this shard's share of a window and pings, paced, its serving nodes: all of them, or a
     * uniform random sample of {@code maxPinged} when there are more than that.
     * The window's statistics (latency, share answered) are estimates from the sample either way; what
     * pinging every node would add is two datagrams per node per window, the largest idle cost of a
     * gateway and its nodes.
     */
    void open(long sentAtMicros, long startNanos, long windowMs, int maxPinged) {
        PingWindow opened = new PingWindow(sentAtMicros, startNanos, windowMs);
        window = opened;
        List<Session> pinged = sessions.sample(maxPinged, Session::isServing, ThreadLocalRandom.current());
        long slices = Math.max(1, windowMs / 2 / PING_SLICE_MS);
        int perSlice = (int) Math.max(PING_BURST, (pinged.size() + slices - 1) / slices);
        slice(opened, pinged, 0, perSlice);
    }

    /** Pings {@code pinged[from, from + perSlice)} still here and serving, then schedules the next slice. */
    private void slice(PingWindow opened, List<Session> pinged, int from, int perSlice) {
        if (window != opened) {
            return;
        }
        int to = Math.min(pinged.size(), from + perSlice);
        long now = System.nanoTime();
        for (int i = from; i < to; i++) {
            Session session = pinged.get(i);
            if (session.isServing() && sessions.get(session.mnId) == session) {
                opened.pinged(session.mnId, now);
                session.link.ping(opened.sentAtMicros());
            }
        }
        if (to < pinged.size()) {
            loop.schedule(() -> slice(opened, pinged, to, perSlice), PING_SLICE_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** The node answered a ping; a late pong, or one of another window, is counted and dropped. */
    void pong(Session session, long timestamp) {
        long now = System.nanoTime();
        if (window == null || !window.onPong(session.mnId, timestamp, now)) {
            metrics.latePongs.inc();
        } else {
            metrics.pingRoundTrip.observe(window.roundTripNanos(session.mnId, now) / 1e9);
        }
    }

    /**
     * Closes this shard's share of the window: its {@code serving} nodes now, listed if {@code listed}
     * (a walk over every session), and what they answered.
     */
    PingWindow.Part close(long sentAtMicros, boolean listed, int serving) {
        List<UUID> connected = List.of();
        if (listed) {
            connected = new ArrayList<>(sessions.size());
            for (Session session : sessions.values()) {
                if (session.isServing()) {
                    connected.add(session.mnId);
                }
            }
            serving = connected.size();
        }
        PingWindow closing = window;
        if (closing == null || closing.sentAtMicros() != sentAtMicros) {
            // this shard never opened it, or a newer one
            return new PingWindow.Part(connected, serving, Map.of(), Map.of());
        }
        window = null;
        return closing.closePart(connected, serving);
    }

    /** The gateway stops: no more pings, and pongs still coming are late. */
    void stop() {
        window = null;
    }
}
