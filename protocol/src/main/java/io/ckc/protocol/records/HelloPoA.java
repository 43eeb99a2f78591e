package io.ckc.protocol.records;

/**
 * A gateway announcing itself to the PoA manager when it starts, on {@code ckc.gw.hello} keyed by
 * gateway id: where mobile nodes reach it.
 *
 * @param mqttAddress host:port of its MQTT listener, or null when it has none
 */
public record HelloPoA(String gatewayId, String udpHost, int udpPort, String mqttAddress, long timestamp) {
}
