package io.ckc.gateway;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ckc.protocol.kafka.Json;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import io.ckc.testing.EmbeddedKafkaExtension;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.paho.mqttv5.client.IMqttToken;
import org.eclipse.paho.mqttv5.client.MqttAsyncClient;
import org.eclipse.paho.mqttv5.client.MqttClient;
import org.eclipse.paho.mqttv5.client.MqttConnectionOptions;
import org.eclipse.paho.mqttv5.client.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.common.MqttException;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The gateway's MQTT adapter on a real in-JVM Kafka broker, driven by a stock MQTT 5 client (Eclipse Paho). */
class GatewayMqttITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private final ObjectMapper mapper = Json.newMapper();

    private static MqttClient client(Gateway gateway, String clientId) throws MqttException {
        String uri = "tcp://127.0.0.1:" + gateway.mqttAddress().orElseThrow().getPort();
        MqttClient client = new MqttClient(uri, clientId, new MemoryPersistence());
        MqttConnectionOptions options = new MqttConnectionOptions();
        options.setCleanStart(true);
        options.setKeepAliveInterval(30);
        client.connect(options);
        return client;
    }

    @Test
    void aStockMqtt5ClientPublishesToAnAppTopicAndGetsItsUnicastWithItsTimeLeftAndDeliveredCountsOnItsPuback()
            throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-mqtt"));
        GatewayConfig config = GatewayConfig.forTest("gw-mqtt", KAFKA.bootstrapServers(), topics).toBuilder()
                .mqttPort(0).build();
        try (Gateway gateway = Gateway.start(config);
             KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            MqttClient device = client(gateway, "greenhouse-3");
            BlockingQueue<MqttMessage> inbox = new LinkedBlockingQueue<>();
            IMqttToken subscribed = device.subscribe(new org.eclipse.paho.mqttv5.common.MqttSubscription[]{
                    new org.eclipse.paho.mqttv5.common.MqttSubscription("ckc/greenhouse-3/inbox", 1)},
                    new org.eclipse.paho.mqttv5.client.IMqttMessageListener[]{(topic, message) -> inbox.add(message)});
            assertThat(subscribed.getReasonCodes()).containsExactly(1);

            device.publish("app/echo", "21.5 C".getBytes(), 1, false); // returns once PUBACKed: Kafka has it
            AppMessage up = KAFKA.readJson(topics.app("echo"), 1, WAIT, AppMessage.class).get(0);
            String nodeId = UUID.nameUUIDFromBytes("ckc-mqtt:greenhouse-3".getBytes()).toString();
            assertThat(up.mnId()).isEqualTo(nodeId);
            assertThat(new String(up.payload())).isEqualTo("21.5 C");
            assertThat(up.gatewayId()).isEqualTo("gw-mqtt");

            MnEvent connected = KAFKA.readJson(topics.mnEvents(), 1, WAIT, MnEvent.class).get(0);
            long expiresAt = System.currentTimeMillis() + 20_000;
            producer.send(new ProducerRecord<>(topics.gateway("gw-mqtt"), nodeId, Json.write(mapper,
                    new GatewayCommand.Deliver(new Unicast("down-1", "app", nodeId, "open vent".getBytes(), null,
                            System.currentTimeMillis(), true), connected.epoch(), expiresAt))));
            MqttMessage down = inbox.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(down).isNotNull();
            assertThat(new String(down.getPayload())).isEqualTo("open vent");
            assertThat(down.getQos()).isEqualTo(1);
            assertThat(down.getProperties().getMessageExpiryInterval()).isBetween(1L, 20L);
            List<Receipt> receipts = KAFKA.readJson(topics.delivered(), 1, WAIT, Receipt.class);
            assertThat(receipts).extracting(Receipt::messageId, Receipt::outcome)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("down-1", Receipt.Outcome.DELIVERED));

            // anything but app/<channel> is refused with its reason code, and the connection stays
            MqttAsyncClient other = new MqttAsyncClient(
                    "tcp://127.0.0.1:" + gateway.mqttAddress().orElseThrow().getPort(), "greenhouse-4",
                    new MemoryPersistence());
            other.connect(new MqttConnectionOptions()).waitForCompletion(WAIT.toMillis());
            IMqttToken refused = other.publish("sensors/greenhouse-4", new MqttMessage("x".getBytes(), 1, false, null));
            refused.waitForCompletion(WAIT.toMillis());
            assertThat(refused.getReasonCodes()).containsExactly(0x90); // Topic Name invalid
            assertThat(other.isConnected()).isTrue();
            other.disconnect().waitForCompletion(WAIT.toMillis());
            other.close();
            device.disconnect();
            device.close();
        }
    }
}
