package io.ckc.client;

import io.ckc.protocol.frame.GatewayAddress;

/**
 * A handover as the node lives it (paper section 4.1): told to move, the node first lets the
 * messages in flight on its old session be acknowledged, for at most the drain time, then leaves for
 * the target; until the session there is up it is moving, and the application hears one
 * {@code handedOver} instead of a disconnect and a connect.
 */
final class HandoverDrain {

    private final long drainMs;
    private GatewayAddress target;
    private long deadlineMs;
    /** The gateway the node left, until the session on the target is up or fails. */
    private String movingFrom;

    HandoverDrain(long drainMs) {
        this.drainMs = drainMs;
    }

    /**
     * A handover command arrived while connected to {@code currentGatewayId}. Returns false, and
     * changes nothing, for a handover to the same gateway or while another one drains.
     */
    boolean begin(GatewayAddress to, String currentGatewayId, long nowMs) {
        if (to.gatewayId().equals(currentGatewayId) || target != null) {
            return false;
        }
        target = to;
        deadlineMs = nowMs + drainMs;
        return true;
    }

    /** Whether a handover waits for the old session's messages in flight. */
    boolean draining() {
        return target != null;
    }

    /** Whether the node may leave now: nothing left in flight, or the drain time is up. */
    boolean due(boolean inFlight, long nowMs) {
        return target != null && (!inFlight || nowMs >= deadlineMs);
    }

    /** The node leaves {@code currentGatewayId} for the target, which this returns. */
    GatewayAddress leave(String currentGatewayId) {
        GatewayAddress to = target;
        target = null;
        movingFrom = currentGatewayId;
        return to;
    }

    /** The session ended before the node left: the handover is off. */
    void cancel() {
        target = null;
    }

    /** Whether the node is between the gateway it left and the target. */
    boolean moving() {
        return movingFrom != null;
    }

    /** The move is over, arrived or failed: returns the gateway it left, or null if it was not moving. */
    String finish() {
        String from = movingFrom;
        movingFrom = null;
        return from;
    }
}
