package io.ckc.gateway;

import io.ckc.protocol.mrudp.ReliableSession;
import io.ckc.protocol.records.Unicast;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * A mobile node's session on this gateway. Identified by node id and epoch, not by address: the
 * peer address follows the node's latest valid frame, so an IP or port change keeps the session.
 * Confined to the channel's event loop.
 */
final class MnSession {

    final UUID mnId;
    final long epoch;
    final ReliableSession reliable;
    /** Unicasts sent but not yet acknowledged, by delivery id: they go to ckc.unsent if the session breaks. */
    final Map<UUID, Unicast> unacknowledged = new HashMap<>();
    InetSocketAddress peer;
    long lastHeardMs;
    /** Set once the Connected event is in Kafka and the node was told it is connected. */
    boolean announced;
    /** The mini-buffer (paper 4.2, when on): the last two unicasts the node acknowledged, oldest first. */
    final java.util.ArrayDeque<Unicast> recentlyAcknowledged = new java.util.ArrayDeque<>(2);
    /** When a node that acknowledged a handover is considered gone even if its Disconnect was lost; 0 if not leaving. */
    long leavingDeadlineMs;

    MnSession(UUID mnId, long epoch, ReliableSession reliable, InetSocketAddress peer, long nowMs) {
        this.mnId = mnId;
        this.epoch = epoch;
        this.reliable = reliable;
        this.peer = peer;
        this.lastHeardMs = nowMs;
    }

    /** Connected and staying: announced, and not on its way to another gateway after a handover. */
    boolean isServing() {
        return announced && leavingDeadlineMs == 0;
    }

    void heardFrom(InetSocketAddress from, long nowMs) {
        peer = from;
        lastHeardMs = nowMs;
    }
}
