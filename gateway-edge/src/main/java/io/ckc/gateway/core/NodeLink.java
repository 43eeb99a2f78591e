package io.ckc.gateway.core;

import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.records.Unicast;

import java.util.List;
import java.util.UUID;

/**
 * What the gateway core asks of a protocol adapter for one node's session: the adapter's half of a
 * {@link Session}. The core decides (when a node counts as connected, what to deliver, when to ping,
 * hand over or close); the link only speaks its wire format. Every call is made on the session's
 * shard event loop.
 */
public interface NodeLink {

    /** The node's Connected event is in Kafka: tell the node its session is open. */
    void accepted(String gatewayId, int maxPayloadBytes);

    /** The uplink message the adapter handed over under {@code ref} is in Kafka: acknowledge it to the node. */
    void acknowledge(int ref);

    /** The uplink message under {@code ref} is refused: tell the node why. */
    void reject(int ref, Refusal refusal, String message);

    /**
     * Sends a unicast (its sender, payload, and where the node reads it: the group, the reply topic and correlation
     * data, for a protocol that has topics) to the node reliably, never after {@code expiresAt} (epoch milliseconds;
     * {@link Long#MAX_VALUE} for no deadline). When the node acknowledges it, the adapter calls
     * {@link SessionShard#delivered}; when the node says it never had it and the deadline has passed,
     * {@link SessionShard#expired}; when the link can never send it, {@link SessionShard#undeliverable}; when the link
     * gives up, {@link SessionShard#fail}.
     */
    void deliver(UUID deliveryId, Unicast unicast, long expiresAt);

    /**
     * Asks the node to move to another gateway, at the target's endpoint of this link's protocol; the
     * node's acknowledgement comes back as {@link SessionShard#leaving}.
     *
     * @return false, and nothing sent, when the target serves no endpoint of this protocol
     */
    boolean handover(GatewayEndpoints target);

    /** The best gateways, sorted by score, for the node to reconnect to after a loss. */
    void gatewayList(List<GatewayEndpoints> gateways);

    /**
     * Whether the link tells a silent node's failure itself ({@link SessionShard#fail}), as a TCP connection with a
     * keep-alive does; the core then does not time the session out by {@code CKC_SESSION_TIMEOUT_MS}. A datagram
     * link does not: the core's silence timeout is its only one.
     */
    default boolean watchesLiveness() {
        return false;
    }

    /** A latency probe; the node's answer comes back as {@link SessionShard#pong}. */
    void ping(long timestamp);

    /**
     * The core closes the session: release the link's state and return the ids of deliveries the
     * node has not acknowledged, in the order they were sent (they go to {@code ckc.unsent}).
     */
    List<UUID> close();
}
