package io.ckc.protocol.mqtt;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class MqttUserPropertiesTest {

    private static MqttProperties withUserProperties(String... keysAndValues) {
        MqttProperties properties = new MqttProperties();
        MqttProperties.UserProperties pairs = new MqttProperties.UserProperties();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            pairs.add(keysAndValues[i], keysAndValues[i + 1]);
        }
        properties.add(pairs);
        return properties;
    }

    @Test
    void aMessageIdIsReadFromAPublishAsItCrossesTheWire() {
        UUID id = UUID.randomUUID();
        EmbeddedChannel client = new EmbeddedChannel(MqttEncoder.INSTANCE);
        EmbeddedChannel server = new EmbeddedChannel(new MqttDecoder());
        client.writeOutbound(MqttMessageBuilders.connect().clientId("d1").protocolVersion(MqttVersion.MQTT_5).build());
        server.writeInbound((ByteBuf) client.readOutbound());
        server.readInbound();
        client.writeOutbound(MqttMessageBuilders.publish().topicName("app/echo").qos(MqttQoS.AT_LEAST_ONCE).messageId(1)
                .properties(withUserProperties(MqttUserProperties.SENDER, "s", MqttUserProperties.MESSAGE_ID,
                        id.toString()))
                .payload(Unpooled.wrappedBuffer(new byte[] {1})).build());
        server.writeInbound((ByteBuf) client.readOutbound());
        MqttPublishMessage decoded = server.readInbound();
        try {
            MqttProperties properties = decoded.variableHeader().properties();
            assertThat(MqttUserProperties.messageId(properties)).isEqualTo(id);
            assertThat(MqttUserProperties.get(properties, MqttUserProperties.SENDER)).isEqualTo("s");
        } finally {
            decoded.release();
        }
    }

    @Test
    void noMessageIdWhenThereIsNoneOrItIsNotAUuid() {
        assertThat(MqttUserProperties.messageId(new MqttProperties())).isNull();
        assertThat(MqttUserProperties.messageId(withUserProperties(MqttUserProperties.MESSAGE_ID, "42"))).isNull();
        assertThat(MqttUserProperties.get(withUserProperties("a", "1"), "b")).isNull();
    }
}
