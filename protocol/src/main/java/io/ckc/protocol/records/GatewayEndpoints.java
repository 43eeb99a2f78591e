package io.ckc.protocol.records;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** A gateway and where nodes reach it, one endpoint per protocol it serves. */
public record GatewayEndpoints(String gatewayId, List<Endpoint> endpoints) {

    public GatewayEndpoints {
        Objects.requireNonNull(gatewayId, "gatewayId");
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
    }

    /** The endpoint of this protocol, if the gateway serves it. */
    public Optional<Endpoint> endpoint(String protocol) {
        return endpoints.stream().filter(e -> e.protocol().equals(protocol)).findFirst();
    }
}
