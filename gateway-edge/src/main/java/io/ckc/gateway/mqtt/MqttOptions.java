package io.ckc.gateway.mqtt;

/**
 * The MQTT adapter's own options, beside the core's (as {@link io.ckc.gateway.udp.UdpOptions} are the UDP adapter's).
 *
 * @param host           the address the listeners bind
 * @param port           the TCP port (0: any free one)
 * @param webSocketPort  the WebSocket port, path {@code /mqtt} (0: any free one; -1: none)
 * @param publicHost     the host devices use to reach it, as the gateway announces it
 * @param maxPacketBytes the largest MQTT packet taken or sent: the core's payload limit plus room for topic and
 *                       properties
 */
public record MqttOptions(String host, int port, int webSocketPort, String publicHost, int maxPacketBytes) {

    /** The path a WebSocket client asks for, as EMQX, HiveMQ and Mosquitto serve it. */
    public static final String WEBSOCKET_PATH = "/mqtt";

    public MqttOptions {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("MQTT port out of range: " + port);
        }
        if (webSocketPort < -1 || webSocketPort > 65_535) {
            throw new IllegalArgumentException("MQTT WebSocket port out of range: " + webSocketPort);
        }
        if (maxPacketBytes <= 0) {
            throw new IllegalArgumentException("maximum MQTT packet size must be positive, got " + maxPacketBytes);
        }
    }
}
