package io.ckc.gateway;

import io.ckc.protocol.kafka.RecordFormat;
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
    private final RecordFormat format = new RecordFormat();

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
            producer.send(new ProducerRecord<>(topics.gateway("gw-mqtt"), nodeId, format.write(
                    new GatewayCommand.Deliver(new Unicast("down-1", "app", nodeId, "open vent".getBytes(), null,
                            System.currentTimeMillis(), true), connected.epoch(), expiresAt))));
            MqttMessage down = inbox.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(down).isNotNull();
            assertThat(new String(down.getPayload())).isEqualTo("open vent");
            assertThat(down.getQos()).isEqualTo(1);
            assertThat(down.getProperties().getMessageExpiryInterval()).isBetween(1L, 20L);
            List<Receipt> receipts = KAFKA.readReceipts(topics.delivered(), 1, WAIT);
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

    @Test
    void aQos1PublishIsNotAcknowledgedWhileKafkaIsDownAndReachesKafkaOnceItIsBack() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-down"));
        GatewayConfig config = GatewayConfig.forTest("gw-down", KAFKA.bootstrapServers(), topics).toBuilder()
                .mqttPort(0).build();
        try (Gateway gateway = Gateway.start(config)) {
            MqttAsyncClient device = new MqttAsyncClient(
                    "tcp://127.0.0.1:" + gateway.mqttAddress().orElseThrow().getPort(), "boiler-9",
                    new MemoryPersistence());
            device.connect(new MqttConnectionOptions()).waitForCompletion(WAIT.toMillis());
            boolean started = false;
            KAFKA.stopBroker();
            try {
                IMqttToken publish = device.publish("app/echo",
                        new MqttMessage("pressure high".getBytes(), 1, false, null));
                // The gateway takes a device's packets in order: once this SUBACK is back, it has handed the publish
                // to Kafka's producer.
                device.subscribe(new org.eclipse.paho.mqttv5.common.MqttSubscription("ckc/boiler-9/inbox", 1))
                        .waitForCompletion(WAIT.toMillis());
                assertThat(publish.isComplete()).as("PUBACK while Kafka is down").isFalse();
                KAFKA.startBroker();
                started = true;
                publish.waitForCompletion(WAIT.toMillis());
                assertThat(publish.getReasonCodes()).containsExactly(0);
            } finally {
                if (!started) {
                    KAFKA.startBroker();
                }
            }
            List<AppMessage> written = KAFKA.readJson(topics.app("echo"), 1, WAIT, AppMessage.class);
            assertThat(written).extracting(m -> new String(m.payload())).containsExactly("pressure high");
            device.disconnect().waitForCompletion(WAIT.toMillis());
            device.close();
        }
    }

    @Test
    void aHandoverMovesAnMqtt5DeviceByServerReferenceOrOnItsHandoverTopic() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-from"));
        GatewayConfig config = GatewayConfig.forTest("gw-from", KAFKA.bootstrapServers(), topics).toBuilder()
                .mqttPort(0).build();
        try (Gateway gateway = Gateway.start(config);
             KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            String uri = "tcp://127.0.0.1:" + gateway.mqttAddress().orElseThrow().getPort();
            BlockingQueue<org.eclipse.paho.mqttv5.client.MqttDisconnectResponse> disconnects =
                    new LinkedBlockingQueue<>();
            MqttAsyncClient plain = new MqttAsyncClient(uri, "van-1", new MemoryPersistence());
            plain.setCallback(new org.eclipse.paho.mqttv5.client.MqttCallback() {
                @Override
                public void disconnected(org.eclipse.paho.mqttv5.client.MqttDisconnectResponse response) {
                    disconnects.add(response);
                }

                @Override
                public void mqttErrorOccurred(MqttException exception) {
                }

                @Override
                public void messageArrived(String topic, MqttMessage message) {
                }

                @Override
                public void deliveryComplete(IMqttToken token) {
                }

                @Override
                public void connectComplete(boolean reconnect, String serverURI) {
                }

                @Override
                public void authPacketArrived(int reasonCode,
                                              org.eclipse.paho.mqttv5.common.packet.MqttProperties properties) {
                }
            });
            plain.connect(new MqttConnectionOptions()).waitForCompletion(WAIT.toMillis());
            MqttClient listening = client(gateway, "van-2");
            BlockingQueue<String> handovers = new LinkedBlockingQueue<>();
            listening.subscribe(new org.eclipse.paho.mqttv5.common.MqttSubscription[]{
                            new org.eclipse.paho.mqttv5.common.MqttSubscription("ckc/van-2/handover", 1)},
                    new org.eclipse.paho.mqttv5.client.IMqttMessageListener[]{
                            (topic, message) -> handovers.add(new String(message.getPayload()))});

            io.ckc.protocol.records.GatewayEndpoints target = new io.ckc.protocol.records.GatewayEndpoints("gw-to",
                    List.of(new io.ckc.protocol.records.Endpoint(io.ckc.protocol.records.Endpoint.MQTT, "10.0.0.7",
                            1884)));
            for (String device : List.of("van-1", "van-2")) {
                String node = UUID.nameUUIDFromBytes(("ckc-mqtt:" + device).getBytes()).toString();
                producer.send(new ProducerRecord<>(topics.gateway("gw-from"), node,
                        format.write(new GatewayCommand.Handover(node, target, 1))));
            }
            org.eclipse.paho.mqttv5.client.MqttDisconnectResponse moved =
                    disconnects.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(moved).isNotNull();
            assertThat(moved.getReturnCode()).isEqualTo(0x9C); // Use another server
            assertThat(moved.getServerReference()).isEqualTo("10.0.0.7:1884");
            String told = handovers.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(told).isEqualTo("{\"gatewayId\":\"gw-to\",\"host\":\"10.0.0.7\",\"port\":1884}");
            plain.close();
            listening.disconnect();
            listening.close();
        }
    }

    @Test
    void aDeviceConnectsOverWebSocketAndPublishesAndReadsAsOverTcp() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-ws"));
        GatewayConfig config = GatewayConfig.forTest("gw-ws", KAFKA.bootstrapServers(), topics).toBuilder()
                .mqttPort(0).mqttWebSocketPort(0).build();
        try (Gateway gateway = Gateway.start(config);
             KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            String uri = "ws://127.0.0.1:" + gateway.mqttWebSocketAddress().orElseThrow().getPort() + "/mqtt";
            MqttClient device = new MqttClient(uri, "browser-1", new MemoryPersistence());
            device.connect(new MqttConnectionOptions());
            BlockingQueue<MqttMessage> inbox = new LinkedBlockingQueue<>();
            device.subscribe(new org.eclipse.paho.mqttv5.common.MqttSubscription[]{
                            new org.eclipse.paho.mqttv5.common.MqttSubscription("ckc/browser-1/inbox", 1)},
                    new org.eclipse.paho.mqttv5.client.IMqttMessageListener[]{(topic, message) -> inbox.add(message)});
            device.publish("app/echo", "over websocket".getBytes(), 1, false);
            AppMessage up = KAFKA.readJson(topics.app("echo"), 1, WAIT, AppMessage.class).get(0);
            assertThat(new String(up.payload())).isEqualTo("over websocket");

            String node = UUID.nameUUIDFromBytes("ckc-mqtt:browser-1".getBytes()).toString();
            MnEvent connected = KAFKA.readJson(topics.mnEvents(), 1, WAIT, MnEvent.class).get(0);
            producer.send(new ProducerRecord<>(topics.gateway("gw-ws"), node, format.write(
                    new GatewayCommand.Deliver(new Unicast("ws-1", "app", node, new byte[12_000], null,
                            System.currentTimeMillis(), false), connected.epoch(), null))));
            MqttMessage down = inbox.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(down).isNotNull();
            assertThat(down.getPayload()).hasSize(12_000);
            device.disconnect();
            device.close();
        }
    }
}
