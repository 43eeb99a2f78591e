package io.ckc.jobs.delivery;

import io.ckc.protocol.records.Unicast;

/** A unicast routed to the gateway that holds its recipient's session, and that session's epoch. */
public record Outbound(String gatewayId, long epoch, Unicast unicast) {
}
