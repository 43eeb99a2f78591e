package io.ckc.gateway.mqtt;

import io.ckc.gateway.GatewayConfig;
import io.ckc.gateway.core.FakePublisher;
import io.ckc.gateway.core.GatewayCore;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.gateway.core.RateLimits;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.mqtt.MqttUserProperties;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import io.ckc.testing.Await;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttReasonCodes;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.util.ReferenceCountUtil;
import org.apache.kafka.common.errors.TimeoutException;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A device's connection on Netty's embedded channel, the core's one shard on another, with a fake publisher: what
 * the device sends becomes calls on the core, and what the core sends the device comes out as MQTT packets.
 */
class MqttConnectionTest {

    private final EmbeddedChannel loop = new EmbeddedChannel();
    private final FakePublisher publisher = new FakePublisher(Set.of("echo"));
    private final GatewayMetrics metrics = new GatewayMetrics("gw-t", new PrometheusRegistry());
    private final DeviceSessions sessions = new DeviceSessions();
    private final GatewayCore core = new GatewayCore(
            GatewayConfig.forTest("gw-t", "unused:9092", Topics.DEFAULT).core(), publisher, metrics,
            List.of(loop.eventLoop()));

    private EmbeddedChannel device() {
        return new EmbeddedChannel(new MqttConnection(core, metrics, sessions));
    }

    private MqttMessage connect(EmbeddedChannel device, String clientId, MqttVersion version) {
        device.writeInbound(MqttMessageBuilders.connect().clientId(clientId).protocolVersion(version)
                .keepAlive(30).cleanSession(true).build());
        loop.runPendingTasks();
        return device.readOutbound();
    }

    private void send(EmbeddedChannel device, MqttMessage packet) {
        device.writeInbound(packet);
        loop.runPendingTasks();
    }

    private static MqttPublishMessage publish(String topic, MqttQoS qos, int packetId, String payload) {
        return MqttMessageBuilders.publish().topicName(topic).qos(qos).messageId(packetId)
                .payload(Unpooled.copiedBuffer(payload, StandardCharsets.UTF_8)).build();
    }

    private static MqttMessage subscribe(int packetId, String... filters) {
        MqttMessageBuilders.SubscribeBuilder builder = MqttMessageBuilders.subscribe().messageId(packetId);
        for (String filter : filters) {
            builder.addSubscription(MqttQoS.AT_LEAST_ONCE, filter);
        }
        return builder.build();
    }

    private static MqttMessage pubAck(int packetId) {
        return MqttMessageBuilders.pubAck().packetId(packetId).build();
    }

    private static int reasonOf(MqttMessage packet) {
        Object header = packet.variableHeader();
        if (header instanceof MqttPubReplyMessageVariableHeader reply) {
            return reply.reasonCode() & 0xff;
        }
        return ((MqttReasonCodeAndPropertiesVariableHeader) header).reasonCode() & 0xff;
    }

    @Test
    void aDeviceIsConnectedOnlyOnceItsConnectedEventIsInKafkaAndToldMaximumQosOne() {
        EmbeddedChannel device = device();
        publisher.hold();
        device.writeInbound(MqttMessageBuilders.connect().clientId("sensor-7").protocolVersion(MqttVersion.MQTT_5)
                .keepAlive(30).cleanSession(true).build());
        loop.runPendingTasks();
        assertThat((Object) device.readOutbound()).isNull();
        MnEvent connected = publisher.of(MnEvent.class).get(0);
        assertThat(connected.mnId()).isEqualTo(DeviceTopics.nodeId("sensor-7").toString());
        assertThat(connected.type()).isEqualTo(MnEvent.Type.CONNECTED);

        publisher.completeHeld();
        loop.runPendingTasks();
        MqttConnAckMessage ack = device.readOutbound();
        assertThat(ack.variableHeader().connectReturnCode()).isEqualTo(MqttConnectReturnCode.CONNECTION_ACCEPTED);
        assertThat(ack.variableHeader().isSessionPresent()).isFalse();
        assertThat(ack.variableHeader().properties().getProperty(MqttProperties.MAXIMUM_QOS).value()).isEqualTo(1);
        assertThat(MqttUserProperties.get(ack.variableHeader().properties(), MqttUserProperties.GATEWAY))
                .isEqualTo("gw-t");
    }

    @Test
    void aQos1PublishToAnAppTopicIsAcknowledgedOnlyOnceKafkaHasItAndQos0NotAtAll() {
        EmbeddedChannel device = device();
        connect(device, "n1", MqttVersion.MQTT_5);
        publisher.hold();
        send(device, publish("app/echo", MqttQoS.AT_LEAST_ONCE, 7, "hello"));
        assertThat((Object) device.readOutbound()).isNull();
        publisher.completeHeld();
        loop.runPendingTasks();
        MqttMessage ack = device.readOutbound();
        assertThat(ack.fixedHeader().messageType()).isEqualTo(MqttMessageType.PUBACK);
        assertThat(((MqttPubReplyMessageVariableHeader) ack.variableHeader()).messageId()).isEqualTo(7);
        assertThat(reasonOf(ack)).isZero();

        send(device, publish("app/echo", MqttQoS.AT_MOST_ONCE, 0, "fire and forget"));
        assertThat((Object) device.readOutbound()).isNull();
        assertThat(publisher.of(AppMessage.class)).extracting(AppMessage::channel, m -> new String(m.payload()),
                        AppMessage::mnId)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("echo", "hello", DeviceTopics.nodeId("n1").toString()),
                        org.assertj.core.groups.Tuple.tuple("echo", "fire and forget", DeviceTopics.nodeId("n1").toString()));
    }

    @Test
    void aDevicesMessageIdUserPropertyNamesItsMessageSoOneSentTwiceIsOneMessage() {
        EmbeddedChannel device = device();
        connect(device, "n-ids", MqttVersion.MQTT_5);
        UUID id = UUID.randomUUID();
        MqttProperties properties = new MqttProperties();
        MqttProperties.UserProperties user = new MqttProperties.UserProperties();
        user.add("message-id", id.toString());
        properties.add(user);
        for (int packetId : new int[] {4, 9}) { // sent again, as after a reconnect
            send(device, MqttMessageBuilders.publish().topicName("app/echo").qos(MqttQoS.AT_LEAST_ONCE)
                    .messageId(packetId).properties(properties)
                    .payload(Unpooled.copiedBuffer("once", StandardCharsets.UTF_8)).build());
        }
        send(device, publish("app/echo", MqttQoS.AT_LEAST_ONCE, 5, "no id"));
        List<AppMessage> written = publisher.of(AppMessage.class);
        assertThat(written).extracting(AppMessage::messageId).hasSize(3)
                .startsWith(id.toString(), id.toString()).last().isNotEqualTo(id.toString());
    }

    @Test
    void aPublishKafkaCouldNotTakeIsHeldUnacknowledgedAndGoesAgainBeforeTheDevicesLaterOnes() {
        EmbeddedChannel device = device();
        connect(device, "n-kafka-down", MqttVersion.MQTT_5);
        loop.freezeTime();
        publisher.failAtOnce(new TimeoutException("Topic app.echo not present in metadata after 0 ms."));
        send(device, publish("app/echo", MqttQoS.AT_LEAST_ONCE, 1, "first"));
        send(device, publish("app/echo", MqttQoS.AT_LEAST_ONCE, 2, "second"));
        assertThat((Object) device.readOutbound()).as("a PUBACK or DISCONNECT while Kafka is down").isNull();
        loop.advanceTimeBy(MqttLink.RETRY_MAX_MS, TimeUnit.MILLISECONDS);
        loop.runPendingTasks();
        assertThat((Object) device.readOutbound()).as("a PUBACK or DISCONNECT while Kafka is still down").isNull();
        assertThat(metrics.rejected.labelValues("PUBLISH_FAILED").get()).as("refusals in two tries of two").isEqualTo(4.0);

        publisher.records.clear();
        publisher.failAtOnce(null);
        loop.advanceTimeBy(MqttLink.RETRY_MAX_MS, TimeUnit.MILLISECONDS);
        loop.runPendingTasks();
        MqttMessage first = device.readOutbound();
        MqttMessage second = device.readOutbound();
        assertThat(List.of(first, second)).extracting(
                        ack -> ((MqttPubReplyMessageVariableHeader) ack.variableHeader()).messageId(),
                        MqttConnectionTest::reasonOf)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, 0), org.assertj.core.groups.Tuple.tuple(2, 0));
        assertThat(publisher.of(AppMessage.class)).extracting(m -> new String(m.payload()))
                .containsExactly("first", "second");
        assertThat(device.isActive()).isTrue();
    }

    @Test
    void aHeldPublishWhoseMessageExpiryPassesIsRefusedAndNeverWritten() {
        EmbeddedChannel device = device();
        connect(device, "n-expiring", MqttVersion.MQTT_5);
        loop.freezeTime();
        publisher.failAtOnce(new TimeoutException("Topic app.echo not present in metadata after 0 ms."));
        MqttProperties expiry = new MqttProperties();
        expiry.add(new MqttProperties.IntegerProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL, 1));
        send(device, MqttMessageBuilders.publish().topicName("app/echo").qos(MqttQoS.AT_LEAST_ONCE).messageId(5)
                .properties(expiry).payload(Unpooled.copiedBuffer("stale soon", StandardCharsets.UTF_8)).build());
        for (int tries = 0; tries < 2; tries++) { // the first may come before the second of expiry has passed
            loop.advanceTimeBy(MqttLink.RETRY_MAX_MS, TimeUnit.MILLISECONDS);
            loop.runPendingTasks();
        }
        MqttMessage refused = device.readOutbound();
        assertThat(((MqttPubReplyMessageVariableHeader) refused.variableHeader()).messageId()).isEqualTo(5);
        assertThat(reasonOf(refused)).isEqualTo(MqttReasonCodes.PubAck.IMPLEMENTATION_SPECIFIC_ERROR.byteValue() & 0xff);

        publisher.records.clear();
        publisher.failAtOnce(null);
        loop.advanceTimeBy(MqttLink.RETRY_MAX_MS, TimeUnit.MILLISECONDS);
        loop.runPendingTasks();
        assertThat(publisher.of(AppMessage.class)).isEmpty();
        assertThat((Object) device.readOutbound()).isNull();
        assertThat(device.isActive()).isTrue();
    }

    @Test
    void aPublishToAnyOtherTopicIsRefusedWithAReasonCodeCountedAndNeverForwarded() {
        EmbeddedChannel device = device();
        connect(device, "n2", MqttVersion.MQTT_5);
        send(device, publish("sensors/temperature", MqttQoS.AT_LEAST_ONCE, 3, "21.5"));
        MqttMessage ack = device.readOutbound();
        assertThat(ack.fixedHeader().messageType()).isEqualTo(MqttMessageType.PUBACK);
        assertThat(reasonOf(ack)).isEqualTo(MqttReasonCodes.PubAck.TOPIC_NAME_INVALID.byteValue() & 0xff);
        assertThat(publisher.of(AppMessage.class)).isEmpty();
        assertThat(metrics.rejected.labelValues("FORBIDDEN_CHANNEL").get()).isEqualTo(1.0);
        assertThat(device.isActive()).isTrue();
    }

    @Test
    void aDeviceMaySubscribeToItsOwnTopicsOnly() {
        EmbeddedChannel device = device();
        connect(device, "n3", MqttVersion.MQTT_5);
        send(device, subscribe(11, "ckc/n3/inbox", "ckc/n4/inbox", "ckc/n3/#", "#", "ckc/groups/zones/+",
                "ckc/broadcast", "ckc/+/inbox", "ckc/groups/"));
        MqttSubAckMessage ack = device.readOutbound();
        assertThat(ack.payload().reasonCodes()).containsExactly(1, 0x87, 1, 0x87, 1, 1, 0x87, 0x87);
        assertThat(metrics.rejected.labelValues("SUBSCRIBE_NOT_AUTHORIZED").get()).isEqualTo(4.0);
    }

    @Test
    void aUnicastWaitsForTheInboxSubscriptionThenGoesOutAtQos1WithItsTimeLeftAndCountsOnlyOnPuback() {
        EmbeddedChannel device = device();
        connect(device, "n5", MqttVersion.MQTT_5);
        MnEvent connected = publisher.of(MnEvent.class).get(0);
        long expiresAt = System.currentTimeMillis() + 30_000;
        core.command(new GatewayCommand.Deliver(new Unicast("m-1", "app", connected.mnId(), "hi".getBytes(), null,
                System.currentTimeMillis(), true), connected.epoch(), expiresAt));
        loop.runPendingTasks();
        assertThat((Object) device.readOutbound()).isNull(); // no subscription to the inbox yet

        send(device, subscribe(1, "ckc/n5/inbox"));
        assertThat(((MqttMessage) device.readOutbound()).fixedHeader().messageType()).isEqualTo(MqttMessageType.SUBACK);
        MqttPublishMessage delivery = device.readOutbound();
        try {
            assertThat(delivery.variableHeader().topicName()).isEqualTo("ckc/n5/inbox");
            assertThat(delivery.fixedHeader().qosLevel()).isEqualTo(MqttQoS.AT_LEAST_ONCE);
            assertThat(delivery.payload().toString(StandardCharsets.UTF_8)).isEqualTo("hi");
            int expiry = (Integer) delivery.variableHeader().properties()
                    .getProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL).value();
            assertThat(expiry).isBetween(29, 30);
            assertThat(publisher.of(Receipt.class)).isEmpty();

            send(device, pubAck(delivery.variableHeader().packetId()));
            assertThat(publisher.of(Receipt.class)).extracting(Receipt::messageId, Receipt::outcome)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("m-1", Receipt.Outcome.DELIVERED));
        } finally {
            ReferenceCountUtil.release(delivery);
        }
    }

    /** Two delivery jobs side by side (a blue/green rescale), or one replaying after a restore: the device gets it once. */
    @Test
    void aUnicastTheDeviceAcknowledgedIsNotSentAgainButItsDeliveryIsReportedAgain() {
        EmbeddedChannel device = device();
        connect(device, "n6", MqttVersion.MQTT_5);
        MnEvent connected = publisher.of(MnEvent.class).get(0);
        send(device, subscribe(1, "ckc/n6/inbox"));
        assertThat(((MqttMessage) device.readOutbound()).fixedHeader().messageType()).isEqualTo(MqttMessageType.SUBACK);
        Unicast unicast = new Unicast("m-twice", "app", connected.mnId(), "hi".getBytes(), null,
                System.currentTimeMillis(), true);
        long expiresAt = System.currentTimeMillis() + 30_000;
        core.command(new GatewayCommand.Deliver(unicast, connected.epoch(), expiresAt));
        loop.runPendingTasks();
        MqttPublishMessage first = device.readOutbound();
        try {
            send(device, pubAck(first.variableHeader().packetId()));
        } finally {
            ReferenceCountUtil.release(first);
        }
        core.command(new GatewayCommand.Deliver(unicast, connected.epoch(), expiresAt));
        loop.runPendingTasks();
        assertThat((Object) device.readOutbound()).as("the repeat is not sent").isNull();
        assertThat(publisher.of(Receipt.class)).extracting(Receipt::messageId, Receipt::outcome).containsExactly(
                org.assertj.core.groups.Tuple.tuple("m-twice", Receipt.Outcome.DELIVERED),
                org.assertj.core.groups.Tuple.tuple("m-twice", Receipt.Outcome.DELIVERED));
    }

    @Test
    void aUnicastPastItsDeadlineNeverGoesOutAndOneHandedOverPastItMayHaveArrivedOnAnEarlierSession()
            throws InterruptedException {
        EmbeddedChannel device = device();
        connect(device, "n21", MqttVersion.MQTT_5);
        MnEvent connected = publisher.of(MnEvent.class).get(0);
        long now = System.currentTimeMillis();
        // the delivery job's question: in flight on an earlier session, and past its deadline now
        core.command(new GatewayCommand.Deliver(new Unicast("asked-late", "app", connected.mnId(), "a".getBytes(), null,
                now - 60_000, true), connected.epoch(), now - 1));
        // still in time when handed over, but it waits for the inbox subscription past its deadline
        core.command(new GatewayCommand.Deliver(new Unicast("waited", "app", connected.mnId(), "b".getBytes(), null,
                now, true), connected.epoch(), now + 300));
        loop.runPendingTasks();
        Await.until("the second deadline passed", 5, () -> System.currentTimeMillis() > now + 300);
        send(device, subscribe(1, "ckc/n21/inbox"));
        assertThat(((MqttMessage) device.readOutbound()).fixedHeader().messageType()).isEqualTo(MqttMessageType.SUBACK);
        assertThat((Object) device.readOutbound()).as("no content past its deadline").isNull();
        assertThat(publisher.of(UnsentMessage.class)).extracting(u -> u.unicast().messageId(), UnsentMessage::reason,
                UnsentMessage::mayHaveArrived).containsExactly(
                org.assertj.core.groups.Tuple.tuple("asked-late", UnsentMessage.Reason.EXPIRED, true),
                org.assertj.core.groups.Tuple.tuple("waited", UnsentMessage.Reason.EXPIRED, false));
    }

    @Test
    void aPublishCarriesItsExpiryResponseTopicAndCorrelationDataToTheApplication() {
        EmbeddedChannel device = device();
        connect(device, "n12", MqttVersion.MQTT_5);
        MqttProperties properties = new MqttProperties();
        properties.add(new MqttProperties.IntegerProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL, 90));
        properties.add(new MqttProperties.StringProperty(MqttProperties.RESPONSE_TOPIC, "ckc/n12/answers"));
        properties.add(new MqttProperties.BinaryProperty(MqttProperties.CORRELATION_DATA, new byte[] {4, 2}));
        send(device, MqttMessageBuilders.publish().topicName("app/echo").qos(MqttQoS.AT_LEAST_ONCE).messageId(5)
                .properties(properties).payload(Unpooled.copiedBuffer("q", StandardCharsets.UTF_8)).build());

        AppMessage message = publisher.of(AppMessage.class).get(0);
        assertThat(message.ttlMs()).isEqualTo(90_000L);
        assertThat(message.replyTo()).isEqualTo("ckc/n12/answers");
        assertThat(message.correlation()).containsExactly(4, 2);
        Unicast answer = message.answer("echo", message.payload());
        assertThat(answer.replyTo()).isEqualTo("ckc/n12/answers");
        assertThat(answer.correlation()).containsExactly(4, 2);
    }

    @Test
    void aPublishToAGroupTopicIsAGroupcastAndOneToTheContextTopicAContextReport() {
        EmbeddedChannel device = device();
        connect(device, "n13", MqttVersion.MQTT_5);
        send(device, publish("ckc/groups/zones/a", MqttQoS.AT_LEAST_ONCE, 1, "to zone a"));
        send(device, publish("ckc/n13/context", MqttQoS.AT_LEAST_ONCE, 2,
                "{\"latitude\":-22.9,\"longitude\":-43.2,\"battery\":0.5,\"attributes\":{\"zone\":\"a\"}}"));
        send(device, publish("ckc/n13/context", MqttQoS.AT_LEAST_ONCE, 3, "not json"));

        assertThat(publisher.of(Groupcast.class)).extracting(Groupcast::group, g -> new String(g.payload()),
                        Groupcast::sender)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("zones/a", "to zone a",
                        DeviceTopics.nodeId("n13").toString()));
        assertThat(publisher.of(ContextReport.class)).extracting(r -> r.context().battery(),
                r -> r.context().attributes().get("zone")).containsExactly(org.assertj.core.groups.Tuple.tuple(0.5, "a"));
        List<Integer> reasons = List.of(reasonOf(device.readOutbound()), reasonOf(device.readOutbound()),
                reasonOf(device.readOutbound()));
        assertThat(reasons).containsExactly(0, 0, MqttReasonCodes.PubAck.PAYLOAD_FORMAT_INVALID.byteValue() & 0xff);
        assertThat(metrics.rejected.labelValues("MALFORMED").get()).isEqualTo(1.0);
    }

    @Test
    void aDeliveryGoesToTheReplyGroupOrBroadcastTopicTheDeviceSubscribesToAndElseToItsInbox() {
        EmbeddedChannel device = device();
        connect(device, "n14", MqttVersion.MQTT_5);
        MnEvent connected = publisher.of(MnEvent.class).get(0);
        send(device, subscribe(1, "ckc/n14/inbox", "ckc/n14/answers", "ckc/groups/zones/+"));
        ReferenceCountUtil.release(device.readOutbound());
        String node = connected.mnId();
        long now = System.currentTimeMillis();
        List<Unicast> unicasts = List.of(
                new Unicast("m-reply", "echo", node, "r".getBytes(), null, now, false, null, "ckc/n14/answers",
                        new byte[] {7}),
                new Unicast("m-group", "app", node, "g".getBytes(), null, now, false, "zones/a", null, null),
                new Unicast("m-broadcast", "app", node, "b".getBytes(), null, now, false, Unicast.BROADCAST, null,
                        null),
                new Unicast("m-reply-elsewhere", "echo", node, "x".getBytes(), null, now, false, null,
                        "ckc/n15/answers", null));
        for (Unicast unicast : unicasts) {
            core.command(new GatewayCommand.Deliver(unicast, connected.epoch(), Long.MAX_VALUE));
        }
        loop.runPendingTasks();
        List<String> topics = new java.util.ArrayList<>();
        for (int i = 0; i < unicasts.size(); i++) {
            MqttPublishMessage delivery = device.readOutbound();
            topics.add(delivery.variableHeader().topicName());
            if (i == 0) {
                assertThat((byte[]) delivery.variableHeader().properties()
                        .getProperty(MqttProperties.CORRELATION_DATA).value()).containsExactly(7);
            }
            ReferenceCountUtil.release(delivery);
        }
        assertThat(topics).containsExactly("ckc/n14/answers", "ckc/groups/zones/a", "ckc/n14/inbox", "ckc/n14/inbox");
    }

    @Test
    void aTopicAliasSetByOnePublishNamesTheTopicOfTheNextAndAnUnknownOneClosesTheConnection() {
        EmbeddedChannel device = device();
        MqttConnAckMessage ack = (MqttConnAckMessage) connect(device, "n16", MqttVersion.MQTT_5);
        assertThat(ack.variableHeader().properties().getProperty(MqttProperties.TOPIC_ALIAS_MAXIMUM).value())
                .isEqualTo(MqttConnection.TOPIC_ALIAS_MAXIMUM);
        send(device, aliased("app/echo", 3, "first"));
        send(device, aliased("", 3, "second"));
        assertThat(publisher.of(AppMessage.class)).extracting(m -> new String(m.payload()), AppMessage::channel)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("first", "echo"),
                        org.assertj.core.groups.Tuple.tuple("second", "echo"));

        send(device, aliased("", 4, "to an alias never set"));
        MqttMessage disconnect = device.readOutbound();
        assertThat(reasonOf(disconnect)).isEqualTo(MqttReasonCodes.Disconnect.TOPIC_ALIAS_INVALID.byteValue() & 0xff);
        assertThat(device.isActive()).isFalse();
        assertThat(publisher.of(AppMessage.class)).hasSize(2);
    }

    private static MqttPublishMessage aliased(String topic, int alias, String payload) {
        MqttProperties properties = new MqttProperties();
        properties.add(new MqttProperties.IntegerProperty(MqttProperties.TOPIC_ALIAS, alias));
        return MqttMessageBuilders.publish().topicName(topic).qos(MqttQoS.AT_MOST_ONCE).properties(properties)
                .payload(Unpooled.copiedBuffer(payload, StandardCharsets.UTF_8)).build();
    }

    @Test
    void aDeliveryLargerThanTheDevicesMaximumPacketSizeIsNeverSentAndDroppedWithAReceipt() {
        EmbeddedChannel device = device();
        MqttProperties limits = new MqttProperties();
        limits.add(new MqttProperties.IntegerProperty(MqttProperties.MAXIMUM_PACKET_SIZE, 200));
        device.writeInbound(MqttMessageBuilders.connect().clientId("n17").protocolVersion(MqttVersion.MQTT_5)
                .keepAlive(30).cleanSession(true).properties(limits).build());
        loop.runPendingTasks();
        ReferenceCountUtil.release(device.readOutbound());
        send(device, subscribe(1, "ckc/n17/inbox"));
        ReferenceCountUtil.release(device.readOutbound());
        MnEvent connected = publisher.of(MnEvent.class).get(0);
        long now = System.currentTimeMillis();
        core.command(new GatewayCommand.Deliver(new Unicast("big", "app", connected.mnId(), new byte[300], null, now,
                true), connected.epoch(), Long.MAX_VALUE));
        core.command(new GatewayCommand.Deliver(new Unicast("small", "app", connected.mnId(), new byte[10], null, now,
                true), connected.epoch(), Long.MAX_VALUE));
        loop.runPendingTasks();

        MqttPublishMessage delivery = device.readOutbound();
        try {
            assertThat(delivery.payload().readableBytes()).isEqualTo(10);
        } finally {
            ReferenceCountUtil.release(delivery);
        }
        assertThat((Object) device.readOutbound()).isNull();
        assertThat(publisher.of(Receipt.class)).extracting(Receipt::messageId, Receipt::outcome)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("big", Receipt.Outcome.DROPPED));
        assertThat(metrics.undeliverable.get()).isEqualTo(1.0);
    }

    @Test
    void thePacketSizeALinkReckonsIsTheSizeNettyEncodes() {
        EmbeddedChannel encoder = new EmbeddedChannel(MqttEncoder.INSTANCE);
        encoder.writeOutbound(MqttMessageBuilders.connect().clientId("x").protocolVersion(MqttVersion.MQTT_5).build());
        ReferenceCountUtil.release(encoder.readOutbound()); // the encoder now writes MQTT 5
        for (int payload : new int[] {0, 10, 200, 20_000}) {
            MqttProperties properties = new MqttProperties();
            properties.add(new MqttProperties.IntegerProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL, 30));
            properties.add(new MqttProperties.BinaryProperty(MqttProperties.CORRELATION_DATA, new byte[] {1, 2, 3}));
            MqttProperties.UserProperties user = new MqttProperties.UserProperties();
            user.add("message-id", UUID.randomUUID().toString());
            user.add("sender", "écho");
            properties.add(user);
            MqttPublishMessage publish = MqttMessageBuilders.publish().topicName("ckc/ñ1/inbox")
                    .qos(MqttQoS.AT_LEAST_ONCE).messageId(9).properties(properties)
                    .payload(Unpooled.wrappedBuffer(new byte[payload])).build();
            int reckoned = MqttLink.packetSize(publish);
            encoder.writeOutbound(publish);
            ByteBuf encoded = encoder.readOutbound();
            assertThat(reckoned).as("payload %d", payload).isEqualTo(encoded.readableBytes());
            encoded.release();
        }
    }

    @Test
    void aSecondConnectWithTheSameClientIdTakesTheSessionOverWithANewerEpoch() {
        EmbeddedChannel first = device();
        connect(first, "n6", MqttVersion.MQTT_5);
        EmbeddedChannel second = device();
        MqttConnAckMessage ack = (MqttConnAckMessage) connect(second, "n6", MqttVersion.MQTT_5);
        assertThat(ack.variableHeader().connectReturnCode()).isEqualTo(MqttConnectReturnCode.CONNECTION_ACCEPTED);

        MqttMessage disconnect = first.readOutbound();
        assertThat(disconnect.fixedHeader().messageType()).isEqualTo(MqttMessageType.DISCONNECT);
        assertThat(reasonOf(disconnect)).isEqualTo(MqttReasonCodes.Disconnect.SESSION_TAKEN_OVER.byteValue() & 0xff);
        assertThat(first.isActive()).isFalse();
        List<MnEvent> events = publisher.of(MnEvent.class);
        assertThat(events).extracting(MnEvent::type).containsExactly(MnEvent.Type.CONNECTED,
                MnEvent.Type.DISCONNECTED, MnEvent.Type.CONNECTED);
        assertThat(events.get(2).epoch()).isGreaterThan(events.get(0).epoch());
        assertThat(second.isActive()).isTrue();
    }

    @Test
    void aDeviceWhoseSessionsOpenTooOftenIsRefusedWithConnectionRateExceeded() {
        GatewayCore strict = new GatewayCore(GatewayConfig.forTest("gw-t", "unused:9092", Topics.DEFAULT).toBuilder()
                .limits(new RateLimits(0, 0, 0, 0, 1, 60_000, 60_000)).build().core(), publisher, metrics,
                List.of(loop.eventLoop()));
        for (int i = 0; i < 2; i++) {
            MqttConnAckMessage ack = (MqttConnAckMessage) connect(
                    new EmbeddedChannel(new MqttConnection(strict, metrics, sessions)), "flappy", MqttVersion.MQTT_5);
            assertThat(ack.variableHeader().connectReturnCode()).isEqualTo(MqttConnectReturnCode.CONNECTION_ACCEPTED);
        }
        assertThat(metrics.flappingNodes.get()).isEqualTo(1.0);

        EmbeddedChannel third = new EmbeddedChannel(new MqttConnection(strict, metrics, sessions));
        MqttConnAckMessage refused = (MqttConnAckMessage) connect(third, "flappy", MqttVersion.MQTT_5);
        assertThat(refused.variableHeader().connectReturnCode())
                .isEqualTo(MqttConnectReturnCode.CONNECTION_REFUSED_CONNECTION_RATE_EXCEEDED);
        assertThat(third.isActive()).isFalse();
        assertThat(metrics.connectsRefused.labelValues("flapping").get()).isEqualTo(1.0);
        assertThat(publisher.of(MnEvent.class)).extracting(MnEvent::type).containsExactly(MnEvent.Type.CONNECTED,
                MnEvent.Type.DISCONNECTED, MnEvent.Type.CONNECTED);
    }

    @Test
    void aSessionWithAnExpiryKeepsItsSubscriptionsForADeviceThatComesBackWithoutACleanStart() {
        MqttProperties keepAMinute = new MqttProperties();
        keepAMinute.add(new MqttProperties.IntegerProperty(MqttProperties.SESSION_EXPIRY_INTERVAL, 60));
        EmbeddedChannel first = device();
        send(first, MqttMessageBuilders.connect().clientId("n18").protocolVersion(MqttVersion.MQTT_5).keepAlive(30)
                .cleanSession(true).properties(keepAMinute).build());
        assertThat(((MqttConnAckMessage) first.readOutbound()).variableHeader().isSessionPresent()).isFalse();
        send(first, subscribe(1, "ckc/n18/inbox"));
        ReferenceCountUtil.release(first.readOutbound());
        send(first, MqttMessage.DISCONNECT);

        EmbeddedChannel back = device();
        send(back, MqttMessageBuilders.connect().clientId("n18").protocolVersion(MqttVersion.MQTT_5).keepAlive(30)
                .cleanSession(false).properties(keepAMinute).build());
        MqttConnAckMessage resumed = back.readOutbound();
        assertThat(resumed.variableHeader().isSessionPresent()).isTrue();
        MnEvent connected = publisher.of(MnEvent.class).stream().filter(e -> e.type() == MnEvent.Type.CONNECTED)
                .reduce((a, b) -> b).orElseThrow();
        core.command(new GatewayCommand.Deliver(new Unicast("m-18", "app", connected.mnId(), "kept".getBytes(), null,
                System.currentTimeMillis(), false), connected.epoch(), Long.MAX_VALUE));
        loop.runPendingTasks();
        MqttPublishMessage delivery = back.readOutbound(); // no SUBSCRIBE on this connection: the session had it
        try {
            assertThat(delivery.variableHeader().topicName()).isEqualTo("ckc/n18/inbox");
        } finally {
            ReferenceCountUtil.release(delivery);
        }

        send(back, MqttMessage.DISCONNECT);
        EmbeddedChannel clean = device();
        send(clean, MqttMessageBuilders.connect().clientId("n18").protocolVersion(MqttVersion.MQTT_5).keepAlive(30)
                .cleanSession(true).build());
        assertThat(((MqttConnAckMessage) clean.readOutbound()).variableHeader().isSessionPresent()).isFalse();
        send(clean, MqttMessage.DISCONNECT);
        assertThat(sessions.size()).as("no expiry on the last session: nothing kept").isZero();
    }

    @Test
    void moreUnacknowledgedQos1PublishesThanReceiveMaximumCloseTheConnection() {
        EmbeddedChannel device = device();
        MqttConnAckMessage ack = (MqttConnAckMessage) connect(device, "n19", MqttVersion.MQTT_5);
        assertThat(ack.variableHeader().properties().getProperty(MqttProperties.RECEIVE_MAXIMUM).value())
                .isEqualTo(MqttConnection.MAX_INFLIGHT);
        publisher.hold(); // Kafka takes nothing: no PUBACK goes out
        for (int i = 1; i <= MqttConnection.MAX_INFLIGHT; i++) {
            device.writeInbound(publish("app/echo", MqttQoS.AT_LEAST_ONCE, i, "m" + i));
        }
        loop.runPendingTasks();
        assertThat(device.isActive()).isTrue();
        send(device, publish("app/echo", MqttQoS.AT_LEAST_ONCE, MqttConnection.MAX_INFLIGHT + 1, "one too many"));
        MqttMessage disconnect = device.readOutbound();
        assertThat(reasonOf(disconnect))
                .isEqualTo(MqttReasonCodes.Disconnect.RECEIVE_MAXIMUM_EXCEEDED.byteValue() & 0xff);
        assertThat(device.isActive()).isFalse();
        assertThat(metrics.malformedFrames.labelValues("mqtt-receive-maximum").get()).isEqualTo(1.0);
    }

    @Test
    void qos2IsRefusedByClosingTheConnectionWithItsReasonCode() {
        EmbeddedChannel device = device();
        connect(device, "n7", MqttVersion.MQTT_5);
        send(device, publish("app/echo", MqttQoS.EXACTLY_ONCE, 9, "twice?"));
        MqttMessage disconnect = device.readOutbound();
        assertThat(reasonOf(disconnect)).isEqualTo(MqttReasonCodes.Disconnect.QOS_NOT_SUPPORTED.byteValue() & 0xff);
        assertThat(device.isActive()).isFalse();
        assertThat(publisher.of(AppMessage.class)).isEmpty();
    }

    @Test
    void malformedOrOversizedBytesCloseThatConnectionOnlyAndAreCounted() {
        EmbeddedChannel garbage = new EmbeddedChannel(new MqttDecoder(1024), new MqttConnection(core, metrics, sessions));
        EmbeddedChannel other = device();
        connect(other, "n8", MqttVersion.MQTT_5);
        // a whole CONNECT whose protocol is "MQXX", version 9
        ByteBuf bytes = Unpooled.wrappedBuffer(new byte[]{0x10, 12, 0, 4, 'M', 'Q', 'X', 'X', 9, 2, 0, 60, 0, 0});
        garbage.writeInbound(bytes);
        loop.runPendingTasks();
        assertThat(garbage.isActive()).isFalse();
        double counted = metrics.malformedFrames.labelValues("mqtt-malformed").get()
                + metrics.malformedFrames.labelValues("mqtt-version").get();
        assertThat(counted).isEqualTo(1.0);

        EmbeddedChannel big = new EmbeddedChannel(new MqttDecoder(64), new MqttConnection(core, metrics, sessions));
        ByteBuf connectOfMoreThan64 = Unpooled.buffer();
        connectOfMoreThan64.writeByte(0x10).writeByte(100) // an MQTT 5 CONNECT of client "ab", then 85 bytes more
                .writeBytes(new byte[]{0, 4, 'M', 'Q', 'T', 'T', 5, 2, 0, 60, 0, 0, 2, 'a', 'b'}).writeZero(85);
        big.writeInbound(connectOfMoreThan64);
        assertThat(big.isActive()).isFalse();
        assertThat(metrics.malformedFrames.labelValues("mqtt-too-large").get()).isEqualTo(1.0);
        assertThat(other.isActive()).isTrue();
    }

    @Test
    void aWillToAnAppTopicIsPublishedWhenTheConnectionEndsWithoutDisconnectAndOnlyThen() {
        EmbeddedChannel vanishing = device();
        send(vanishing, MqttMessageBuilders.connect().clientId("n9").protocolVersion(MqttVersion.MQTT_5).keepAlive(30)
                .willFlag(true).willTopic("app/echo").willMessage("n9 is gone".getBytes())
                .willQoS(MqttQoS.AT_LEAST_ONCE).build());
        vanishing.close(); // no DISCONNECT: the TCP connection just ends
        loop.runPendingTasks();
        assertThat(publisher.of(AppMessage.class)).extracting(m -> new String(m.payload()), AppMessage::mnId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("n9 is gone", DeviceTopics.nodeId("n9").toString()));
        assertThat(metrics.wills.get()).isEqualTo(1.0);

        EmbeddedChannel leaving = device();
        send(leaving, MqttMessageBuilders.connect().clientId("n10").protocolVersion(MqttVersion.MQTT_5).keepAlive(30)
                .willFlag(true).willTopic("app/echo").willMessage("n10 is gone".getBytes()).build());
        send(leaving, MqttMessage.DISCONNECT);
        assertThat(publisher.of(AppMessage.class)).hasSize(1);

        EmbeddedChannel elsewhere = device();
        send(elsewhere, MqttMessageBuilders.connect().clientId("n11").protocolVersion(MqttVersion.MQTT_5).keepAlive(30)
                .willFlag(true).willTopic("alarms/n11").willMessage("x".getBytes()).build());
        MqttConnAckMessage refused = elsewhere.readOutbound();
        assertThat(refused.variableHeader().connectReturnCode())
                .isEqualTo(MqttConnectReturnCode.CONNECTION_REFUSED_TOPIC_NAME_INVALID);
        assertThat(elsewhere.isActive()).isFalse();
    }

    @Test
    void aClientIdThatIsNotAUuidMapsToAStableNameBasedOneAndAUuidToItself() {
        UUID id = UUID.randomUUID();
        assertThat(DeviceTopics.nodeId(id.toString())).isEqualTo(id);
        assertThat(DeviceTopics.nodeId("kitchen-sensor")).isEqualTo(DeviceTopics.nodeId("kitchen-sensor"))
                .isNotEqualTo(DeviceTopics.nodeId("kitchen-sensor-2"));
    }

    @Test
    void topicFiltersMatchAsMqttSaysAndAppTopicsNameAChannel() {
        assertThat(DeviceTopics.matches("ckc/n1/inbox", "ckc/n1/inbox")).isTrue();
        assertThat(DeviceTopics.matches("ckc/+/inbox", "ckc/n1/inbox")).isTrue();
        assertThat(DeviceTopics.matches("ckc/n1/#", "ckc/n1/inbox")).isTrue();
        assertThat(DeviceTopics.matches("ckc/n1/#", "ckc/n1")).isTrue();
        assertThat(DeviceTopics.matches("#", "ckc/n1/inbox")).isTrue();
        assertThat(DeviceTopics.matches("ckc/+", "ckc/n1/inbox")).isFalse();
        assertThat(DeviceTopics.matches("ckc/n1/inbo", "ckc/n1/inbox")).isFalse();
        assertThat(DeviceTopics.matches("ckc/n1/inbox/x", "ckc/n1/inbox")).isFalse();
        assertThat(DeviceTopics.channel("app/echo")).isEqualTo("echo");
        assertThat(DeviceTopics.channel("app/")).isNull();
        assertThat(DeviceTopics.channel("app/a/b")).isNull();
        assertThat(DeviceTopics.channel("echo")).isNull();
    }
}
