package io.ckc.protocol.records;

import java.util.List;

/**
 * A gateway announcing itself to the PoA manager when it starts, on {@code ckc.gw.hello} keyed by
 * gateway id: where mobile nodes reach it, one endpoint per protocol it serves.
 */
public record HelloPoA(String gatewayId, List<Endpoint> endpoints, long timestamp) {

    public HelloPoA {
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
    }

    /** The gateway and its endpoints, as handovers and gateway lists name them. */
    public GatewayEndpoints reach() {
        return new GatewayEndpoints(gatewayId, endpoints);
    }
}
