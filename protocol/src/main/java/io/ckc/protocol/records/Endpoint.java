package io.ckc.protocol.records;

import java.util.Objects;

/**
 * Where mobile nodes reach a gateway over one protocol: the protocol's name, a host and a port. A gateway
 * announces one per protocol it serves; handovers and gateway lists carry them all, and each protocol
 * adapter picks its own, so nothing in the records or the jobs knows which protocols exist.
 *
 * @param protocol {@link #UDP}, {@link #MQTT}, or any other adapter's name
 */
public record Endpoint(String protocol, String host, int port) {

    /** CKC's reliable-UDP protocol. */
    public static final String UDP = "udp";
    /** MQTT 3.1.1 and 5 over TCP. */
    public static final String MQTT = "mqtt";

    public Endpoint {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(host, "host");
        if (protocol.isBlank() || host.isBlank()) {
            throw new IllegalArgumentException("an endpoint needs a protocol and a host: " + protocol + "://" + host);
        }
        if (port <= 0 || port > 65_535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    @Override
    public String toString() {
        return protocol + "://" + host + ":" + port;
    }
}
