package io.ckc.protocol.records;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** A record on a gateway's own topic {@code ckc.gw.<gatewayId>}, keyed by MN id (or gateway id for settings). */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = GatewayCommand.Deliver.class, name = "deliver"),
        @JsonSubTypes.Type(value = GatewayCommand.Handover.class, name = "handover"),
        @JsonSubTypes.Type(value = GatewayCommand.ConfigurePing.class, name = "ping-config")})
public sealed interface GatewayCommand {

    /**
     * Deliver a unicast to one of the gateway's mobile nodes.
     *
     * @param epoch     the session epoch the delivery job routed for: an unsent report names it, so a
     *                  stale route is not tried again
     * @param expiresAt the message's deadline (epoch ms) by its TTL; the gateway does not start
     *                  sending it later than that. Null: no deadline.
     */
    record Deliver(Unicast unicast, long epoch, Long expiresAt) implements GatewayCommand {
    }

    /**
     * Tell a mobile node to move to another gateway (load balancing by the PoA manager). The target names
     * every endpoint it serves; the node's adapter sends it to the one of the node's protocol.
     */
    record Handover(String mnId, GatewayEndpoints target, long round) implements GatewayCommand {
    }

    /**
     * The PingConfig of paper section 4.1: ping the nodes every {@code intervalMs} and keep each
     * window open {@code windowMs} for their pongs. Takes effect at the next window, no restart.
     */
    record ConfigurePing(long intervalMs, long windowMs) implements GatewayCommand {
        public ConfigurePing {
            if (intervalMs <= 0 || windowMs <= 0 || windowMs > intervalMs) {
                throw new IllegalArgumentException(
                        "ping interval and window must be positive, window <= interval: " + intervalMs + "/" + windowMs);
            }
        }
    }
}
