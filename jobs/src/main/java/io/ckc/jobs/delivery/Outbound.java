package io.ckc.jobs.delivery;

import io.ckc.protocol.records.Unicast;

/**
 * A unicast routed to the gateway that holds its recipient's session, that session's epoch, and the
 * message's deadline by its TTL (epoch ms), which the gateway checks before it sends.
 */
public record Outbound(String gatewayId, long epoch, Unicast unicast, long expiresAt) {
}
