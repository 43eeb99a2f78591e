package io.ckc.protocol.mqtt;

import io.netty.handler.codec.mqtt.MqttProperties;

import java.util.UUID;

/**
 * The MQTT 5 user properties CKC's gateways and devices exchange: a publish's {@link #MESSAGE_ID} (the device's own
 * id for what it sends, so a message sent again is one message to the applications; the delivery's id on what the
 * gateway delivers, so a device drops a repeat), a delivery's {@link #SENDER}, and on CONNACK the {@link #GATEWAY} that
 * serves the device.
 *
 * <p>Netty keeps user properties as one {@link MqttProperties.UserProperty} per pair, whether they were decoded or
 * added as a {@link MqttProperties.UserProperties} list; {@link #get} reads both shapes.
 */
public final class MqttUserProperties {

    public static final String MESSAGE_ID = "message-id";
    public static final String SENDER = "sender";
    public static final String GATEWAY = "gateway";

    private MqttUserProperties() {
    }

    /** The value of the first user property named {@code key}, or null. */
    public static String get(MqttProperties properties, String key) {
        for (MqttProperties.MqttProperty<?> property : properties.getProperties(MqttProperties.USER_PROPERTY)) {
            if (property instanceof MqttProperties.UserProperty pair && key.equals(pair.value().key)) {
                return pair.value().value;
            }
            if (property instanceof MqttProperties.UserProperties pairs) {
                for (MqttProperties.StringPair pair : pairs.value()) {
                    if (key.equals(pair.key)) {
                        return pair.value;
                    }
                }
            }
        }
        return null;
    }

    /** The {@link #MESSAGE_ID} of a publish, or null when it has none or one that is not a UUID. */
    public static UUID messageId(MqttProperties properties) {
        String id = get(properties, MESSAGE_ID);
        if (id == null) {
            return null;
        }
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException notAUuid) {
            return null;
        }
    }
}
