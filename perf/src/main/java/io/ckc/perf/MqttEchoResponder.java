package io.ckc.perf;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttVersion;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The echo application of an MQTT broker baseline: one MQTT 5 connection subscribed to {@code app/<channel>} at QoS
 * 1 that answers every request with its payload, at QoS 1, on the request's Response Topic with its Correlation
 * Data, as CKC's echo application answers a device. Runs in the simulator's process, on its own event loop.
 */
final class MqttEchoResponder implements AutoCloseable {

    private final CompletableFuture<Void> subscribed = new CompletableFuture<>();
    private final Channel channel;
    final AtomicLong answered = new AtomicLong();
    /** Requests without a Response Topic, left unanswered. */
    final AtomicLong unanswerable = new AtomicLong();

    MqttEchoResponder(EventLoopGroup loop, InetSocketAddress broker, String channelName)
            throws IOException, InterruptedException {
        String topic = "app/" + channelName;
        Responder responder = new Responder(topic);
        this.channel = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new MqttDecoder(1024 * 1024), MqttEncoder.INSTANCE, responder);
                    }
                })
                .connect(broker).sync().channel();
        try {
            subscribed.get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            channel.close();
            throw new IOException("the echo responder could not subscribe to " + topic + " on " + broker, e);
        }
    }

    private final class Responder extends SimpleChannelInboundHandler<MqttMessage> {
        private final String topic;
        private int nextPacketId = 1;

        Responder(String topic) {
            this.topic = topic;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            MqttProperties properties = new MqttProperties();
            properties.add(new MqttProperties.IntegerProperty(MqttProperties.RECEIVE_MAXIMUM, 65_535));
            ctx.writeAndFlush(MqttMessageBuilders.connect().clientId("ckc-perf-echo-responder")
                    .protocolVersion(MqttVersion.MQTT_5).cleanSession(true).keepAlive(0).properties(properties)
                    .build());
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, MqttMessage packet) {
            switch (packet.fixedHeader().messageType()) {
                case CONNACK -> {
                    if (((MqttConnAckMessage) packet).variableHeader().connectReturnCode()
                            != MqttConnectReturnCode.CONNECTION_ACCEPTED) {
                        subscribed.completeExceptionally(new IOException("CONNACK " + packet));
                        return;
                    }
                    ctx.writeAndFlush(MqttMessageBuilders.subscribe().messageId(packetId())
                            .addSubscription(MqttQoS.AT_LEAST_ONCE, topic).build());
                }
                case SUBACK -> {
                    if (((MqttSubAckMessage) packet).payload().reasonCodes().get(0) == 1) {
                        subscribed.complete(null);
                    } else {
                        subscribed.completeExceptionally(new IOException("SUBACK " + packet));
                    }
                }
                case PUBLISH -> answer(ctx, (MqttPublishMessage) packet);
                default -> { }
            }
        }

        private void answer(ChannelHandlerContext ctx, MqttPublishMessage request) {
            if (request.fixedHeader().qosLevel() == MqttQoS.AT_LEAST_ONCE) {
                ctx.write(MqttMessageBuilders.pubAck().packetId(request.variableHeader().packetId()).build());
            }
            MqttProperties asked = request.variableHeader().properties();
            if (!(asked.getProperty(MqttProperties.RESPONSE_TOPIC) instanceof MqttProperties.StringProperty to)) {
                unanswerable.incrementAndGet();
                ctx.flush();
                return;
            }
            MqttProperties properties = new MqttProperties();
            if (asked.getProperty(MqttProperties.CORRELATION_DATA) instanceof MqttProperties.BinaryProperty data) {
                properties.add(data);
            }
            ctx.writeAndFlush(MqttMessageBuilders.publish().topicName(to.value()).qos(MqttQoS.AT_LEAST_ONCE)
                    .messageId(packetId()).properties(properties).payload(request.payload().retain()).build());
            answered.incrementAndGet();
        }

        private int packetId() {
            int id = nextPacketId;
            nextPacketId = id == 65_535 ? 1 : id + 1;
            return id;
        }
    }

    @Override
    public void close() {
        channel.writeAndFlush(MqttMessage.DISCONNECT);
        channel.close().syncUninterruptibly();
    }
}
