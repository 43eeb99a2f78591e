package io.ckc.client;

import io.ckc.protocol.frame.Body;

import java.util.List;

/**
 * Callbacks of a mobile node, as users of the original ContextNet client know them. They run on the
 * node's I/O thread: return quickly and hand long work to another thread.
 */
public interface NodeListener {

    /** The node has a session with a gateway and may send. */
    default void connected(MobileNode node) {
    }

    /**
     * The session ended: by request, after retries ran out, because the gateway went silent or no
     * longer held it; {@link MobileNode#lastSessionEnd()} says which.
     */
    default void disconnected(MobileNode node) {
    }

    /**
     * The core moved the node to another gateway (load balancing) and its session there is up.
     * Nothing was lost on the way: messages in flight were finished or are sent again.
     */
    default void handedOver(MobileNode node, String fromGatewayId, String toGatewayId) {
    }

    /** A message from the core; duplicates (same message id) are already dropped. */
    default void newMessageReceived(MobileNode node, ReceivedMessage message) {
    }

    /**
     * Messages and groupcasts no gateway will take: the outbox was full or they waited past its TTL
     * ({@code ClientConfig.outboxTtlMs}, which also bounds a wait for room in the congestion window, or
     * {@code maxQueueDelayMs} when set), the gateway refused them (for a bad channel, group or size; for
     * BUSY only when {@code maxQueueDelayMs} is set: otherwise they go again), or the node was closed or
     * disconnected on
     * purpose with them unsent. A gateway that dies is not a reason: what it did not acknowledge goes
     * to the next gateway. The application decides what to do.
     */
    default void unsentMessages(MobileNode node, List<Body.Outgoing> messages) {
    }

    /** Something went wrong that did not end the session, such as a refused message. */
    default void internalException(MobileNode node, Throwable error) {
    }
}
