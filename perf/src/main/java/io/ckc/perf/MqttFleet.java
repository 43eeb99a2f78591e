package io.ckc.perf;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttVersion;
import org.HdrHistogram.Histogram;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Simulated MQTT 5 devices, a TCP connection each (Netty's MQTT codec, as the gateway uses): each connects with its
 * own client id, subscribes to its inbox ({@code ckc/<client-id>/inbox}) and sends its echo requests to
 * {@code app/<channel>} at QoS 1, naming its inbox as the Response Topic; an echo on its inbox is acknowledged
 * (PUBACK) and counted in {@link #trips}, the same round-trip record the UDP {@link Fleet} keeps. Devices are split
 * over the servers in turn: CKC's gateways, or any MQTT 5 broker with an application that answers to the Response
 * Topic ({@link MqttEchoResponder} beside Mosquitto).
 */
final class MqttFleet implements AutoCloseable {

    private final EventLoopGroup loops;
    private final List<InetSocketAddress> gateways;
    private final List<Device> devices = new ArrayList<>();
    private final String idPrefix = "sim-" + Long.toHexString(UUID.randomUUID().getMostSignificantBits()) + "-";
    final RoundTrips trips;
    final AtomicInteger connected = new AtomicInteger();
    /** QoS 1 publishes the gateway refused (a PUBACK reason code of 0x80 or more). */
    final AtomicLong refused = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    /** CONNECTs the server refused as busy (CKC's admission control): the device tries again after 1-2 s. */
    final AtomicLong busyConnects = new AtomicLong();
    private String channel = StackOptions.ECHO_CHANNEL;
    private int keepAliveSeconds = 60;
    /** The number of the first device in {@link #trips}. */
    private final int firstIndex;

    /** A fleet connected to {@code servers}: every device has its SUBACK, or 180 s went by (the count says). */
    static MqttFleet connected(int deviceCount, List<InetSocketAddress> servers, int ioThreads, String channel,
                               java.io.PrintStream out) throws InterruptedException {
        MqttFleet fleet = new MqttFleet(deviceCount, servers, ioThreads).channel(channel);
        fleet.connectAll(1000);
        Fleet.waitFor(() -> fleet.connected.get() + fleet.errors.get() >= deviceCount, 180, () -> { });
        out.printf("%d of %d MQTT devices connected to %s%n", fleet.connected.get(), deviceCount, servers);
        return fleet;
    }

    MqttFleet(int deviceCount, List<InetSocketAddress> gateways, int ioThreads) {
        this(deviceCount, gateways, ioThreads, new RoundTrips(deviceCount), 0);
    }

    /**
     * Devices numbered from {@code firstIndex} in the round trips {@code trips} (shared with UDP nodes numbered
     * below them, for a mixed load); {@link #sendEcho} takes those numbers.
     */
    MqttFleet(int deviceCount, List<InetSocketAddress> gateways, int ioThreads, RoundTrips trips, int firstIndex) {
        if (gateways.isEmpty()) {
            throw new IllegalArgumentException("MQTT devices need at least one gateway's MQTT address");
        }
        this.loops = new MultiThreadIoEventLoopGroup(ioThreads, NioIoHandler.newFactory());
        this.gateways = gateways;
        this.trips = trips;
        this.firstIndex = firstIndex;
        for (int i = 0; i < deviceCount; i++) {
            devices.add(new Device(firstIndex + i));
        }
    }

    MqttFleet channel(String name) {
        this.channel = name;
        return this;
    }

    /** The keep-alive the devices ask for at CONNECT; they send PINGREQ at half of it. */
    MqttFleet keepAlive(int seconds) {
        this.keepAliveSeconds = seconds;
        return this;
    }

    int size() {
        return devices.size();
    }

    /** The {@code seq}-th echo request of device number {@code device} (from {@code firstIndex}). */
    void sendEcho(int device, int seq) {
        devices.get(device - firstIndex).sendEcho(seq);
    }

    /** Connects every device, pausing between connections. */
    void connectAll(long intervalMicros) throws InterruptedException {
        long start = System.nanoTime();
        for (int i = 0; i < devices.size(); i++) {
            devices.get(i).connect();
            long wait = start + TimeUnit.MICROSECONDS.toNanos(intervalMicros * (i + 1)) - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
        }
    }

    /** Each device sends {@code messages} echo requests at {@code ratePerMinute}, counted in {@code trips.sent}. */
    void runSchedule(int messages, double ratePerMinute, Runnable tick) throws InterruptedException {
        Schedule.run(devices.size(), messages, ratePerMinute, Schedule.Arrivals.CONSTANT,
                (device, seq) -> devices.get(device).sendEcho(seq), trips.sent, tick);
    }

    void awaitEchoes(int quietSeconds, Runnable progress) throws InterruptedException {
        trips.awaitEchoes(quietSeconds, progress);
    }

    Histogram total() {
        return trips.total();
    }

    /** One device: its connection, its packet ids, what comes back. Sharable: a device that connects again reuses it. */
    @io.netty.channel.ChannelHandler.Sharable
    private final class Device extends SimpleChannelInboundHandler<MqttMessage> {

        private final int index;
        private final String clientId;
        private volatile Channel channel;
        /** Whether this device counts in {@link #connected}: from its SUBACK until its connection ends. */
        private boolean counted;
        private int nextPacketId = 1;
        private java.util.concurrent.ScheduledFuture<?> pings;
        /** Its inbox as the Response Topic of every request: where CKC's echo and the responder answer. */
        private final MqttProperties requestProperties = new MqttProperties();

        Device(int index) {
            this.index = index;
            this.clientId = idPrefix + index;
            requestProperties.add(new MqttProperties.StringProperty(MqttProperties.RESPONSE_TOPIC, inbox()));
        }

        private String inbox() {
            return "ckc/" + clientId + "/inbox";
        }

        void connect() {
            new Bootstrap().group(loops).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new MqttDecoder(64 * 1024), MqttEncoder.INSTANCE, Device.this);
                        }
                    })
                    .connect(gateways.get(index % gateways.size()))
                    .addListener(f -> {
                        if (!f.isSuccess()) {
                            errors.incrementAndGet();
                        }
                    });
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            ctx.writeAndFlush(MqttMessageBuilders.connect().clientId(clientId).protocolVersion(MqttVersion.MQTT_5)
                    .cleanSession(true).keepAlive(keepAliveSeconds).build());
            if (keepAliveSeconds > 0) {
                long every = keepAliveSeconds * 500L;
                pings = ctx.executor().scheduleAtFixedRate(() -> ctx.writeAndFlush(MqttMessage.PINGREQ), every, every,
                        TimeUnit.MILLISECONDS);
            }
        }

        /** Sends on the connection's loop, so packet ids are the loop's alone. */
        void sendEcho(int seq) {
            Channel ch = channel;
            if (ch == null) {
                errors.incrementAndGet();
                return;
            }
            byte[] payload = new EchoPayload(index, seq, System.nanoTime()).encode();
            String topic = "app/" + MqttFleet.this.channel;
            ch.eventLoop().execute(() -> ch.writeAndFlush(MqttMessageBuilders.publish().topicName(topic)
                    .qos(MqttQoS.AT_LEAST_ONCE).messageId(packetId()).properties(requestProperties)
                    .payload(Unpooled.wrappedBuffer(payload)).build()));
        }

        private int packetId() {
            int id = nextPacketId;
            nextPacketId = id == 65_535 ? 1 : id + 1;
            return id;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, MqttMessage packet) {
            switch (packet.fixedHeader().messageType()) {
                case CONNACK -> {
                    MqttConnectReturnCode code = ((MqttConnAckMessage) packet).variableHeader().connectReturnCode();
                    if (code == MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_BUSY
                            || code == MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE) {
                        // as a device would: back off, with jitter, and connect again
                        busyConnects.incrementAndGet();
                        ctx.close();
                        ctx.channel().eventLoop().schedule(this::connect,
                                1_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(1_000),
                                TimeUnit.MILLISECONDS);
                        return;
                    }
                    if (code != MqttConnectReturnCode.CONNECTION_ACCEPTED) {
                        errors.incrementAndGet();
                        ctx.close();
                        return;
                    }
                    ctx.writeAndFlush(MqttMessageBuilders.subscribe().messageId(packetId())
                            .addSubscription(MqttQoS.AT_LEAST_ONCE, inbox()).build());
                }
                case SUBACK -> {
                    if (((MqttSubAckMessage) packet).payload().reasonCodes().get(0) == 1) {
                        counted = true;
                        connected.incrementAndGet();
                    } else {
                        errors.incrementAndGet();
                    }
                }
                case PUBACK -> {
                    if (packet.variableHeader() instanceof MqttPubReplyMessageVariableHeader reply
                            && (reply.reasonCode() & 0xff) >= 0x80) {
                        refused.incrementAndGet();
                    }
                }
                case PUBLISH -> {
                    MqttPublishMessage publish = (MqttPublishMessage) packet;
                    EchoPayload echo = EchoPayload.decode(ByteBufUtil.getBytes(publish.payload()));
                    trips.arrived(echo.node(), echo.seq(),
                            TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - echo.sentNanos()),
                            messageId(publish.variableHeader().properties()));
                    if (publish.fixedHeader().qosLevel() == MqttQoS.AT_LEAST_ONCE) {
                        ctx.writeAndFlush(MqttMessageBuilders.pubAck().packetId(publish.variableHeader().packetId())
                                .build());
                    }
                }
                case DISCONNECT -> ctx.close();
                default -> { }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            channel = null;
            if (pings != null) {
                pings.cancel(false);
            }
            if (counted) {
                counted = false;
                connected.decrementAndGet();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.incrementAndGet();
            ctx.close();
        }
    }

    /** The delivery id the gateway puts in the user property {@code message-id}, or null. */
    private static UUID messageId(MqttProperties properties) {
        for (MqttProperties.MqttProperty<?> property : properties.getProperties(MqttProperties.USER_PROPERTY)) {
            if (property instanceof MqttProperties.UserProperties user) {
                for (MqttProperties.StringPair pair : user.value()) {
                    if ("message-id".equals(pair.key)) {
                        return UUID.fromString(pair.value);
                    }
                }
            }
        }
        return null;
    }

    @Override
    public void close() throws InterruptedException {
        for (Device device : devices) {
            Channel ch = device.channel;
            if (ch != null) {
                ch.writeAndFlush(MqttMessage.DISCONNECT);
                ch.close();
            }
        }
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
