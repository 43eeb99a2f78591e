package io.ckc.gateway.mqtt;

/**
 * The MQTT adapter's own options, beside the core's (as {@link io.ckc.gateway.udp.UdpOptions} are the UDP adapter's).
 *
 * @param host           the address the TCP listener binds
 * @param port           the port (0: any free one)
 * @param publicHost     the host devices use to reach it, as the gateway announces it
 * @param maxPacketBytes the largest MQTT packet taken or sent: the core's payload limit plus room for topic and
 *                       properties
 */
public record MqttOptions(String host, int port, String publicHost, int maxPacketBytes) {

    public MqttOptions {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("MQTT port out of range: " + port);
        }
        if (maxPacketBytes <= 0) {
            throw new IllegalArgumentException("maximum MQTT packet size must be positive, got " + maxPacketBytes);
        }
    }
}
