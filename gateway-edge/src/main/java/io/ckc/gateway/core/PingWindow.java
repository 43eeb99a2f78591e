package io.ckc.gateway.core;

import io.ckc.protocol.records.ConnectionReport;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One shard's share of a ping window (paper section 4.1): every node of the shard is pinged once,
 * pong arrival times are recorded while the window is open, late pongs are discarded. At the close
 * each shard hands over its {@link Part}, and {@link #report} turns the parts of all shards into one
 * ConnectionReport in parts of at most {@code chunk} nodes, or, between the windows that list the
 * nodes of a large gateway ({@link #listsNodes}), one part that counts them. The pings of a large window leave paced
 * over its first half rather than in one burst; each arrival is reported as if its ping had left at
 * the window's {@code sentAtMicros}, so {@code arrival - sentAt} stays the node's round trip.
 * Confined to its shard's event loop.
 */
final class PingWindow {

    /**
     * A window lists every node of a gateway of up to this many, and those of a larger one every
     * {@code ceil(nodes / this)} windows; the windows between count them. Why: listing a million
     * nodes every window (5 s) was most of an idle gateway's CPU (the walk, the ids as text, the JSON)
     * and of the PoA manager's, which needs them only to pick nodes to hand over and to end the
     * sessions of a gateway that died; a list at most a few minutes old does for both.
     */
    static final int NODES_LISTED_PER_WINDOW = 20_000;

    /**
     * What one shard saw in a window: the nodes connected at its close (listed, or only counted in
     * {@code serving}), those pinged, and pong arrivals.
     */
    record Part(List<UUID> connected, int serving, Map<UUID, Long> pingedAtNanos, Map<UUID, Long> arrivalMicros) {
    }

    /**
     * Whether the window that follows {@code windowsUnlisted} windows without a list lists the
     * {@code connected} nodes of the gateway.
     */
    static boolean listsNodes(int windowsUnlisted, int connected) {
        return windowsUnlisted + 1 >= (connected + NODES_LISTED_PER_WINDOW - 1) / NODES_LISTED_PER_WINDOW;
    }

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

    /** The round trip of a node whose pong this window took. */
    long roundTripNanos(UUID mnId, long nowNanos) {
        return nowNanos - pingedAtNanos.get(mnId);
    }

    /** Closes this shard's share, listing or only counting its connected nodes: later pongs are discarded. */
    Part closePart(List<UUID> connected, int serving) {
        open = false;
        return new Part(connected, serving, pingedAtNanos, arrivalMicros);
    }

    /** Closes a window that has only this one part and reports it. */
    List<ConnectionReport> close(String gatewayId, List<UUID> connected, int chunk) {
        return report(gatewayId, sentAtMicros, windowMs, List.of(closePart(connected, connected.size())), chunk, true);
    }

    /**
     * The window as ConnectionReport parts of at most {@code chunk} nodes: every node connected at the
     * close, and the pongs of those nodes. Always at least one part, so a gateway with no nodes still
     * reports an (empty) window. Unless {@code listed}: then one part counts the connected nodes and
     * carries the pongs of the pinged ones.
     */
    static List<ConnectionReport> report(String gatewayId, long sentAtMicros, long windowMs, List<Part> shards,
                                         int chunk, boolean listed) {
        if (!listed) {
            int connected = 0;
            int pinged = 0;
            Map<String, Long> pongs = new HashMap<>();
            for (Part part : shards) {
                connected += part.serving();
                pinged += part.pingedAtNanos().size();
                part.arrivalMicros().forEach((mnId, arrival) -> pongs.put(mnId.toString(), arrival));
            }
            return List.of(new ConnectionReport(gatewayId, sentAtMicros, windowMs, 0, 1, Math.min(pinged, connected),
                    pongs, List.of(), connected));
        }
        List<UUID> connected = new ArrayList<>();
        Map<UUID, Long> pinged = new HashMap<>();
        Map<UUID, Long> arrivals = new HashMap<>();
        for (Part part : shards) {
            connected.addAll(part.connected());
            pinged.putAll(part.pingedAtNanos());
            arrivals.putAll(part.arrivalMicros());
        }
        int parts = Math.max(1, (connected.size() + chunk - 1) / chunk);
        List<ConnectionReport> reports = new ArrayList<>(parts);
        for (int part = 0; part < parts; part++) {
            List<UUID> slice = connected.subList(Math.min(part * chunk, connected.size()),
                    Math.min((part + 1) * chunk, connected.size()));
            Map<String, Long> pongs = new HashMap<>();
            List<String> ids = new ArrayList<>(slice.size());
            int pingedInPart = 0;
            for (UUID mnId : slice) {
                if (pinged.containsKey(mnId)) {
                    pingedInPart++;
                }
                String id = mnId.toString();
                ids.add(id);
                Long arrival = arrivals.get(mnId);
                if (arrival != null) {
                    pongs.put(id, arrival);
                }
            }
            reports.add(new ConnectionReport(gatewayId, sentAtMicros, windowMs, part, parts, pingedInPart, pongs, ids));
        }
        return reports;
    }
}
