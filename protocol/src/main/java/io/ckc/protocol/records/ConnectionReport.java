package io.ckc.protocol.records;

import java.util.List;
import java.util.Map;

/**
 * What one ping window saw, on {@code ckc.gw.connections} keyed by gateway id: when the pings left,
 * how long the window stayed open, when each pong arrived (pongs after the window are discarded),
 * and every connected mobile node. A window of many nodes is split into {@code parts} records so no
 * record grows past Kafka's limits; each part lists its own nodes. A gateway of many nodes lists them
 * only every few windows (the gateway's {@code PingWindow.NODES_LISTED_PER_WINDOW}); the windows
 * between are one part that counts them instead.
 *
 * @param pinged            how many of this part's connected nodes were pinged when the window opened (a
 *                          node that connected during the window had no ping to answer)
 * @param unlistedConnected the gateway's connected nodes when {@code connected} does not list them; null
 *                          when it does
 */
public record ConnectionReport(String gatewayId, long pingSentAtMicros, long windowMs, int part, int parts, int pinged,
                               Map<String, Long> pongArrivalMicros, List<String> connected, Integer unlistedConnected) {

    public ConnectionReport {
        pongArrivalMicros = pongArrivalMicros == null ? Map.of() : pongArrivalMicros;
        connected = connected == null ? List.of() : connected;
    }

    /** A part that lists its connected nodes. */
    public ConnectionReport(String gatewayId, long pingSentAtMicros, long windowMs, int part, int parts, int pinged,
                            Map<String, Long> pongArrivalMicros, List<String> connected) {
        this(gatewayId, pingSentAtMicros, windowMs, part, parts, pinged, pongArrivalMicros, connected, null);
    }

    /** Whether this part lists its connected nodes. */
    public boolean listed() {
        return unlistedConnected == null;
    }

    /** This part's connected nodes: those it lists, or the count it gives instead. */
    public int connectedCount() {
        return listed() ? connected.size() : unlistedConnected;
    }
}
