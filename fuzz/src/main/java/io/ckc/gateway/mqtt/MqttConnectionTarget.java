package io.ckc.gateway.mqtt;

import io.ckc.fuzz.Chunks;
import io.ckc.fuzz.DiscardingPublisher;
import io.ckc.gateway.GatewayConfig;
import io.ckc.gateway.core.GatewayCore;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.protocol.kafka.Topics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A gateway's MQTT side (the listener's whole pipeline, from bytes: decoder, encoder, connection) on two TCP
 * connections at once, with time moving on between reads: nothing a device sends makes it throw. One input is one
 * {@link Chunks} sequence: a chunk's tag picks the connection its bytes arrive on (its low bit) or, with its high
 * bit set, lets {@code 100 ms} times the chunk's length pass.
 */
public final class MqttConnectionTarget {

    private static final int TIME_PASSES = 0x80;
    private static final GatewayConfig CONFIG = GatewayConfig.forTest("gw-fuzz", "unused:9092", Topics.DEFAULT)
            .toBuilder().mqttPort(0).build();
    private static final MqttOptions OPTIONS = CONFIG.mqtt().orElseThrow();
    private static final GatewayMetrics METRICS = new GatewayMetrics("gw-fuzz", new PrometheusRegistry());

    private MqttConnectionTarget() {
    }

    /** Jazzer calls it once before fuzzing: the classes load and initialise here, not in the first input's time. */
    public static void fuzzerInitialize() {
        seeds().forEach(MqttConnectionTarget::fuzzerTestOneInput);
    }

    public static void fuzzerTestOneInput(byte[] data) {
        EmbeddedChannel loop = new EmbeddedChannel();
        GatewayCore core = new GatewayCore(CONFIG.core(), new DiscardingPublisher(), METRICS,
                List.of(loop.eventLoop()));
        DeviceSessions sessions = new DeviceSessions();
        EmbeddedChannel[] devices = new EmbeddedChannel[2];
        for (int i = 0; i < devices.length; i++) {
            devices[i] = new EmbeddedChannel();
            MqttAdapter.mqtt(devices[i].pipeline(), OPTIONS, core, METRICS, sessions);
        }
        try {
            for (Chunks.Chunk chunk : Chunks.split(data)) {
                if ((chunk.tag() & TIME_PASSES) != 0) {
                    for (EmbeddedChannel channel : List.of(loop, devices[0], devices[1])) {
                        channel.advanceTimeBy(100L * chunk.bytes().length, TimeUnit.MILLISECONDS);
                        channel.runScheduledPendingTasks();
                    }
                } else {
                    EmbeddedChannel device = devices[chunk.tag() & 1];
                    if (device.isOpen()) {
                        device.writeInbound(Unpooled.wrappedBuffer(chunk.bytes()));
                    }
                }
                loop.runPendingTasks();
                for (EmbeddedChannel device : devices) {
                    device.runPendingTasks();
                    device.releaseOutbound();
                    device.releaseInbound();
                }
            }
        } finally {
            for (EmbeddedChannel device : devices) {
                device.finishAndReleaseAll();
            }
            loop.runPendingTasks();
            loop.finishAndReleaseAll();
        }
    }

    /**
     * A device's session in MQTT 5 and in 3.1.1: connect, subscribe to its inbox, publish to {@code app/echo}
     * at QoS 0 and 1, acknowledge, ping, disconnect; and a second connection that takes the session over.
     */
    public static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        for (MqttVersion version : List.of(MqttVersion.MQTT_5, MqttVersion.MQTT_3_1_1)) {
            List<byte[]> life = encode(version, "sensor-7");
            List<Chunks.Chunk> whole = new ArrayList<>();
            life.forEach(packet -> whole.add(new Chunks.Chunk(0, packet)));
            seeds.add(Chunks.join(whole));
            seeds.add(Chunks.join(List.of(new Chunks.Chunk(0, life.get(0)), new Chunks.Chunk(0, life.get(1)),
                    new Chunks.Chunk(1, life.get(0)), new Chunks.Chunk(1, life.get(2)),
                    new Chunks.Chunk(TIME_PASSES, new byte[100]), new Chunks.Chunk(0, life.get(3)))));
        }
        return seeds;
    }

    private static List<byte[]> encode(MqttVersion version, String clientId) {
        MqttProperties expiry = new MqttProperties();
        if (version == MqttVersion.MQTT_5) {
            expiry.add(new MqttProperties.IntegerProperty(
                    MqttProperties.MqttPropertyType.PUBLICATION_EXPIRY_INTERVAL.value(), 60));
        }
        List<MqttMessage> packets = List.of(
                MqttMessageBuilders.connect().clientId(clientId).protocolVersion(version).keepAlive(30)
                        .cleanSession(true).build(),
                MqttMessageBuilders.subscribe().messageId(1)
                        .addSubscription(MqttQoS.AT_LEAST_ONCE, "ckc/" + clientId + "/inbox")
                        .addSubscription(MqttQoS.AT_LEAST_ONCE, "ckc/broadcast").build(),
                MqttMessageBuilders.publish().topicName("app/echo").qos(MqttQoS.AT_LEAST_ONCE).messageId(2)
                        .properties(expiry).payload(Unpooled.copiedBuffer("hello", StandardCharsets.UTF_8)).build(),
                MqttMessageBuilders.publish().topicName("app/echo").qos(MqttQoS.AT_MOST_ONCE)
                        .payload(Unpooled.copiedBuffer("again", StandardCharsets.UTF_8)).build(),
                MqttMessageBuilders.pubAck().packetId(1).build(),
                MqttMessage.PINGREQ,
                MqttMessageBuilders.unsubscribe().messageId(3).addTopicFilter("ckc/broadcast").build(),
                MqttMessageBuilders.disconnect().build());
        EmbeddedChannel encoder = new EmbeddedChannel(MqttEncoder.INSTANCE);
        List<byte[]> encoded = new ArrayList<>();
        for (MqttMessage packet : packets) {
            encoder.writeOutbound(packet);
            ByteBuf bytes = encoder.readOutbound();
            encoded.add(ByteBufUtil.getBytes(bytes));
            bytes.release();
        }
        encoder.finishAndReleaseAll();
        return encoded;
    }
}
