package io.ckc.protocol.records;

import java.util.List;
import java.util.Map;

/**
 * What one ping window saw, on {@code ckc.gw.connections} keyed by gateway id: when the pings left,
 * how long the window stayed open, when each pong arrived (pongs after the window are discarded),
 * and every connected mobile node. A window of many nodes is split into {@code parts} records so no
 * record grows past Kafka's limits; each part lists its own nodes.
 *
 * @param pinged how many of this part's connected nodes were pinged when the window opened (a node
 *               that connected during the window had no ping to answer)
 */
public record ConnectionReport(String gatewayId, long pingSentAtMicros, long windowMs, int part, int parts, int pinged,
                               Map<String, Long> pongArrivalMicros, List<String> connected) {

    public ConnectionReport {
        pongArrivalMicros = pongArrivalMicros == null ? Map.of() : pongArrivalMicros;
        connected = connected == null ? List.of() : connected;
    }
}
