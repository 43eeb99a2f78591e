package io.ckc.gateway;

import io.ckc.protocol.records.ConnectionReport;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One ping window (paper section 4.1): every node is pinged once, pong arrival times are recorded
 * while the window is open, late pongs are discarded, and at the close the window becomes a
 * ConnectionReport in parts of at most {@code chunk} nodes. The pings of a large window leave paced
 * over its first half rather than in one burst; each arrival is reported as if its ping had left at
 * the window's {@code sentAtMicros}, so {@code arrival - sentAt} stays the node's round trip.
 * Confined to the gateway's event loop.
 */
final class PingWindow {

    private final long sentAtMicros;
    private final long startNanos;
    private final long windowMs;
    private final Map<UUID, Long> pingedAtNanos = new HashMap<>();
    private final Map<UUID, Long> arrivalMicros = new HashMap<>();
    private boolean open = true;

    PingWindow(long sentAtMicros, long startNanos, long windowMs) {
        this.sentAtMicros = sentAtMicros;
        this.startNanos = startNanos;
        this.windowMs = windowMs;
    }

    /** The timestamp every ping of this window carries, which its pong echoes. */
    long sentAtMicros() {
        return sentAtMicros;
    }

    /** Records that a ping left for this node at {@code nowNanos}, so the ping rate counts it. */
    void pinged(UUID mnId, long nowNanos) {
        pingedAtNanos.put(mnId, nowNanos);
    }

    /** Records a pong; returns false when it is late or answers another window's ping. */
    boolean onPong(UUID mnId, long timestamp, long nowNanos) {
        Long pingedAt = pingedAtNanos.get(mnId);
        if (!open || pingedAt == null || timestamp != sentAtMicros
                || nowNanos - startNanos > TimeUnit.MILLISECONDS.toNanos(windowMs)) {
            return false;
        }
        arrivalMicros.putIfAbsent(mnId, sentAtMicros + TimeUnit.NANOSECONDS.toMicros(nowNanos - pingedAt));
        return true;
    }

    /**
     * Closes the window and reports it: every node connected now, and the pongs of those nodes.
     * Always at least one part, so a gateway with no nodes still reports an (empty) window.
     */
    List<ConnectionReport> close(String gatewayId, List<UUID> connected, int chunk) {
        open = false;
        int parts = Math.max(1, (connected.size() + chunk - 1) / chunk);
        List<ConnectionReport> reports = new ArrayList<>(parts);
        for (int part = 0; part < parts; part++) {
            List<UUID> slice = connected.subList(Math.min(part * chunk, connected.size()),
                    Math.min((part + 1) * chunk, connected.size()));
            Map<String, Long> pongs = new HashMap<>();
            List<String> ids = new ArrayList<>(slice.size());
            int pingedInPart = 0;
            for (UUID mnId : slice) {
                if (pingedAtNanos.containsKey(mnId)) {
                    pingedInPart++;
                }
                String id = mnId.toString();
                ids.add(id);
                Long arrival = arrivalMicros.get(mnId);
                if (arrival != null) {
                    pongs.put(id, arrival);
                }
            }
            reports.add(new ConnectionReport(gatewayId, sentAtMicros, windowMs, part, parts, pingedInPart, pongs, ids));
        }
        return reports;
    }
}
