package io.ckc.protocol.frame;

import java.net.InetSocketAddress;
import java.util.Objects;

/** Where a mobile node reaches a gateway over reliable UDP. */
public record GatewayAddress(String gatewayId, String host, int port) {

    public GatewayAddress {
        Objects.requireNonNull(gatewayId, "gatewayId");
        Objects.requireNonNull(host, "host");
        if (port <= 0 || port > 65_535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    public InetSocketAddress socketAddress() {
        return new InetSocketAddress(host, port);
    }
}
