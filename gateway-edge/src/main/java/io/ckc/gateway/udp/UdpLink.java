package io.ckc.gateway.udp;

import io.ckc.gateway.core.NodeLink;
import io.ckc.gateway.core.Refusal;
import io.ckc.gateway.core.Session;
import io.ckc.gateway.core.SessionShard;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.GatewayAddress;
import io.ckc.protocol.mrudp.ReliabilityConfig;
import io.ckc.protocol.mrudp.ReliableSession;
import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.records.Unicast;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A node's session as reliable UDP carries it: the reliable session (sequence numbers, acks,
 * retransmission) and the address the node's latest valid frame came from, which replies go to, so an
 * IP or port change keeps the session. Confined to its shard's event loop.
 */
final class UdpLink implements NodeLink {

    final Session session;
    final ReliableSession reliable;
    private final UdpShard shard;
    InetSocketAddress peer;
    private boolean closed;
    /** When its shard looks at its retransmission timers next ({@link UdpShard}); {@link Long#MAX_VALUE}: never. */
    long lookAtMs = Long.MAX_VALUE;
    /** Whether it waits in its shard's queue for room in the socket's congestion window. */
    boolean waitingForWindow;

    UdpLink(Session session, UdpShard shard, InetSocketAddress peer, ReliabilityConfig reliability) {
        this.session = session;
        this.shard = shard;
        this.peer = peer;
        this.reliable = new ReliableSession(session.mnId(), session.epoch(), reliability, shard.window, this::transmit);
    }

    /**
     * Replies go to where this frame came from. Why the address is kept when it is the same: the link
     * lives long (in the old generation) and every frame brings a new address object; storing each
     * one dirties a card per frame, which G1 then refines and scans at every young collection.
     */
    void follow(InetSocketAddress from) {
        if (!from.equals(peer)) {
            peer = from;
        }
    }

    @Override
    public void accepted(String gatewayId, int maxPayloadBytes) {
        transmit(new Frame.ConnectAck(session.mnId(), session.epoch(), gatewayId, maxPayloadBytes));
    }

    @Override
    public void acknowledge(int ref) {
        reliable.acknowledge(ref);
    }

    @Override
    public void reject(int ref, Refusal refusal, String message) {
        reliable.refuse(ref, new Frame.Error(session.mnId(), session.epoch(), errorCode(refusal), ref, message));
    }

    static ErrorCode errorCode(Refusal refusal) {
        return switch (refusal) {
            case PAYLOAD_TOO_LARGE -> ErrorCode.PAYLOAD_TOO_LARGE;
            case FORBIDDEN_CHANNEL -> ErrorCode.FORBIDDEN_CHANNEL;
            case UNKNOWN_CHANNEL -> ErrorCode.UNKNOWN_CHANNEL;
            case MALFORMED -> ErrorCode.MALFORMED;
            case PUBLISH_FAILED -> ErrorCode.PUBLISH_FAILED;
            case BUSY, RATE_LIMITED -> ErrorCode.BUSY; // the node sends it again a little later
            case NOT_AUTHORIZED -> ErrorCode.NOT_AUTHORIZED;
        };
    }

    @Override
    public void deliver(UUID deliveryId, Unicast unicast, long expiresAt) {
        long now = SessionShard.nowMs();
        long expiresAtMs = expiresAt == Long.MAX_VALUE ? ReliableSession.NO_EXPIRY
                : now + Math.max(0, expiresAt - System.currentTimeMillis()); // on the session's clock
        sendReliably(new Body.Delivery(deliveryId, unicast.sender(), unicast.payload(), expiresAt), now, expiresAtMs);
    }

    @Override
    public boolean handover(GatewayEndpoints target) {
        Optional<GatewayAddress> address = UdpShard.udpAddress(target);
        address.ifPresent(a -> sendReliably(new Body.Handover(a)));
        return address.isPresent();
    }

    @Override
    public void gatewayList(List<GatewayEndpoints> gateways) {
        sendReliably(new Body.GatewayList(shard.udpGateways(gateways)));
    }

    @Override
    public void ping(long timestamp) {
        transmit(new Frame.Ping(session.mnId(), session.epoch(), timestamp));
    }

    @Override
    public List<UUID> close() {
        closed = true;
        shard.stopRetransmitting(this);
        List<UUID> unacknowledged = new ArrayList<>();
        for (Body body : reliable.drainUnacknowledged()) {
            if (body instanceof Body.Delivery delivery) {
                unacknowledged.add(delivery.messageId());
            }
        }
        return unacknowledged;
    }

    boolean closed() {
        return closed;
    }

    private void sendReliably(Body body) {
        sendReliably(body, SessionShard.nowMs(), ReliableSession.NO_EXPIRY);
    }

    private void sendReliably(Body body, long now, long expiresAtMs) {
        if (!closed) {
            reliable.send(body, now, expiresAtMs);
            shard.retransmitting(this);
        }
    }

    /** Nothing more leaves for a closed session: late acknowledgements and retransmissions stay home. */
    private void transmit(Frame frame) {
        if (!closed) {
            shard.send(frame, peer);
        }
    }
}
