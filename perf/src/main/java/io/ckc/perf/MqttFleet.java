package io.ckc.perf;

import io.ckc.protocol.mqtt.MqttUserProperties;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
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
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttVersion;
import org.HdrHistogram.Histogram;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
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
    /** This fleet's own: its devices' client ids are name-based UUIDs of it and their number. */
    private final String idPrefix = "sim-" + Long.toHexString(UUID.randomUUID().getMostSignificantBits()) + "-";
    /** What a device does with a delivery on its inbox; null: an echo, counted in {@link #trips}. */
    private volatile Deliveries deliveries;
    final RoundTrips trips;
    final AtomicInteger connected = new AtomicInteger();
    /** QoS 1 publishes the gateway refused (a PUBACK reason code of 0x80 or more). */
    final AtomicLong refused = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    /**
     * CONNECTs the server refused as busy or over a connection rate (CKC's admission control and its limits per address
     * and node): the device tries again after 1-2 s.
     */
    final AtomicLong busyConnects = new AtomicLong();
    /** Connections a server refused (a gateway down): the device tries the next one on the list. */
    final AtomicLong refusedConnects = new AtomicLong();
    private final AtomicLong duplicatesDropped = new AtomicLong();
    /** Handovers the devices followed: DISCONNECT "Use another server" with a Server Reference. */
    final AtomicLong handovers = new AtomicLong();
    /** The delivery ids a device remembers to drop repeats by. */
    private static final int DELIVERY_IDS_KEPT = 1_024;
    private volatile boolean closing;
    private String channel = StackOptions.ECHO_CHANNEL;
    private int keepAliveSeconds = 60;
    /** How the devices log in to the gateways (TLS, username, password); null: plain, as Mosquitto takes them. */
    private FleetCredentials.MqttLogin login = FleetCredentials.mqtt();
    /** The number of the first device in {@link #trips}. */
    private final int firstIndex;

    /** A fleet connected to {@code servers}: every device has its SUBACK, or 180 s went by (the count says). */
    static MqttFleet connected(int deviceCount, List<InetSocketAddress> servers, int ioThreads, String channel,
                               java.io.PrintStream out) throws InterruptedException {
        return connected(new MqttFleet(deviceCount, servers, ioThreads).channel(channel), servers, out);
    }

    /** The same with a fleet made here (one that logs in to no one: on Mosquitto). */
    static MqttFleet connected(MqttFleet fleet, List<InetSocketAddress> servers, java.io.PrintStream out)
            throws InterruptedException {
        int deviceCount = fleet.devices.size();
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
        trips.devicesFrom(firstIndex);
        for (int i = 0; i < deviceCount; i++) {
            devices.add(new Device(firstIndex + i));
        }
    }

    MqttFleet channel(String name) {
        this.channel = name;
        return this;
    }

    /** The keep-alive the devices ask for at CONNECT; they send PINGREQ at half of it. */
    /** Devices that connect plain and log in to no one: a Mosquitto broker's. */
    MqttFleet onMosquitto() {
        this.login = null;
        return this;
    }

    MqttFleet keepAlive(int seconds) {
        this.keepAliveSeconds = seconds;
        return this;
    }

    int size() {
        return devices.size();
    }

    /** The {@code seq}-th echo request of device number {@code device} (from {@code firstIndex}); sent once connected. */
    void sendEcho(int device, int seq) {
        devices.get(device - firstIndex).sendEcho(seq);
    }

    /** Connects every device, pausing between connections. */
    void connectAll(long intervalMicros) throws InterruptedException {
        connect(0, devices.size(), intervalMicros);
    }

    /** Connects the fleet's devices {@code from} to {@code to} (excluded, counted from 0), pausing between them. */
    void connect(int from, int to, long intervalMicros) throws InterruptedException {
        long start = System.nanoTime();
        for (int i = from; i < to; i++) {
            devices.get(i).connect();
            long wait = start + TimeUnit.MICROSECONDS.toNanos(intervalMicros * (i - from + 1)) - System.nanoTime();
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

    /** Device number {@code device} (from {@code firstIndex}) loses its connection at once, as on a broken link. */
    void linkLost(int device) {
        devices.get(device - firstIndex).linkLost();
    }

    /** Deliveries the devices dropped as repeats of one they had (by the message id the gateway gives each). */
    long duplicatesDroppedByDevices() {
        return duplicatesDropped.get();
    }

    /**
     * One device, confined to one event loop, subscribed to its inbox and to its ping topic (whose probes it
     * acknowledges, as CKC's gateways time them): its connection, its packet ids, the echo requests the server has not
     * acknowledged (in the order sent; sent again, in that order, on its next connection, before any later one), the
     * ids of the deliveries it had. A device whose connection breaks connects again at once (with jitter, so that
     * those of one gateway do not all arrive in one instant) to the same server, and on down the list while a server
     * refuses; one moved by DISCONNECT 0x9C goes to the Server Reference. Sharable: each connection reuses it.
     */
    @io.netty.channel.ChannelHandler.Sharable
    private final class Device extends SimpleChannelInboundHandler<MqttMessage> {

        private final int index;
        private final String clientId;
        private final EventLoop loop;
        private Channel channel;
        private InetSocketAddress server;
        private int serverIndex;
        /** From its SUBACK until its connection ends: counted in {@link #connected}, and it may publish. */
        private boolean ready;
        /** The server refused the CONNECT as busy: the next one comes after 1-2 s, not at once. */
        private boolean backOff;
        /** Left on purpose ({@link #leave}): no reconnecting until it comes back. */
        private boolean away;
        /** The gateway serving it, from its CONNACK (CKC's {@code gateway} user property); null while not connected. */
        private volatile String gatewayId;
        /** Handovers it followed. */
        private volatile int handedOver;
        private int nextPacketId = 1;
        private ScheduledFuture<?> pings;
        private final Map<Integer, Request> unacknowledged = new LinkedHashMap<>();
        private final Set<UUID> deliveryIds = Collections.newSetFromMap(new LinkedHashMap<>(64, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<UUID, Boolean> eldest) {
                return size() > DELIVERY_IDS_KEPT;
            }
        });

        Device(int index) {
            this.index = index;
            // a UUID, so the node id is the client id itself (a name-based one would be the gateway's to derive)
            this.clientId = UUID.nameUUIDFromBytes((idPrefix + index).getBytes(StandardCharsets.UTF_8)).toString();
            this.loop = loops.next();
            this.serverIndex = index % gateways.size();
            this.server = gateways.get(serverIndex);
        }

        private String inbox() {
            return "ckc/" + clientId + "/inbox";
        }

        void connect() {
            loop.execute(this::connectNow);
        }

        private void connectNow() {
            if (closing || away) {
                return;
            }
            new Bootstrap().group(loop).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (login != null) {
                                ch.pipeline().addLast(login.tls().newHandler(ch.alloc(), server.getHostString(),
                                        server.getPort()));
                            }
                            ch.pipeline().addLast(new MqttDecoder(64 * 1024), MqttEncoder.INSTANCE, Device.this);
                        }
                    })
                    .connect(server)
                    .addListener(f -> {
                        if (!f.isSuccess()) { // the server is gone: the next one on the list
                            refusedConnects.incrementAndGet();
                            serverIndex = (serverIndex + 1) % gateways.size();
                            server = gateways.get(serverIndex);
                            reconnectIn(100, 300);
                        }
                    });
        }

        private void reconnectIn(int fromMs, int toMs) {
            loop.schedule(this::connectNow, ThreadLocalRandom.current().nextInt(fromMs, toMs + 1),
                    TimeUnit.MILLISECONDS);
        }

        void linkLost() {
            loop.execute(() -> {
                if (channel != null) {
                    channel.close();
                }
            });
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (away) { // it left while this connection was being opened
                ctx.close();
                return;
            }
            channel = ctx.channel();
            MqttMessageBuilders.ConnectBuilder connect = MqttMessageBuilders.connect().clientId(clientId)
                    .protocolVersion(MqttVersion.MQTT_5).cleanSession(true).keepAlive(keepAliveSeconds);
            if (login != null) { // the client id is the node id
                UUID node = UUID.fromString(clientId);
                connect.hasUser(true).username(login.username(node)).hasPassword(true).password(login.password(node));
            }
            ctx.writeAndFlush(connect.build());
            if (keepAliveSeconds > 0) {
                long every = keepAliveSeconds * 500L;
                pings = ctx.executor().scheduleAtFixedRate(() -> ctx.writeAndFlush(MqttMessage.PINGREQ), every, every,
                        TimeUnit.MILLISECONDS);
            }
        }

        /**
         * Queues the echo request and sends it now if connected; it names the device's inbox as its Response Topic
         * and carries a message id of its own, so that a request sent again is one message to the application.
         */
        void sendEcho(int seq) {
            byte[] payload = new EchoPayload(index, seq, System.nanoTime()).encode();
            loop.execute(() -> {
                MqttProperties properties = withMessageId(UUID.nameUUIDFromBytes((clientId + ":" + seq)
                        .getBytes(StandardCharsets.UTF_8)));
                properties.add(new MqttProperties.StringProperty(MqttProperties.RESPONSE_TOPIC, inbox()));
                queue(new Request("app/" + MqttFleet.this.channel, payload, properties));
            });
        }

        /** A message to {@code app/<channel>} with a message id of its own, queued like an echo request. */
        void publishTo(String channel, byte[] payload) {
            loop.execute(() -> queue(new Request("app/" + channel, payload, withMessageId(UUID.randomUUID()))));
        }

        /** Publish properties carrying the device's own {@code message-id}. */
        private static MqttProperties withMessageId(UUID id) {
            MqttProperties properties = new MqttProperties();
            MqttProperties.UserProperties user = new MqttProperties.UserProperties();
            user.add(MqttUserProperties.MESSAGE_ID, id.toString());
            properties.add(user);
            return properties;
        }

        /** A context report to {@code ckc/<client-id>/context}, queued like an echo request. */
        void report(byte[] json) {
            loop.execute(() -> queue(new Request("ckc/" + clientId + "/context", json, MqttProperties.NO_PROPERTIES)));
        }

        private void queue(Request request) {
            int packetId = packetId();
            unacknowledged.put(packetId, request);
            if (ready) {
                send(packetId, request);
            }
        }

        /** Disconnects on purpose (DISCONNECT, reason 0) and stays away until {@link #comeBack}. */
        void leave() {
            loop.execute(() -> {
                away = true;
                if (channel != null) {
                    channel.writeAndFlush(MqttMessage.DISCONNECT).addListener(ChannelFutureListener.CLOSE);
                }
            });
        }

        /** Connects again after {@link #leave}: to the next server on the list with {@code move}, else the same. */
        void comeBack(boolean move) {
            loop.execute(() -> {
                away = false;
                if (move) {
                    serverIndex = (serverIndex + 1) % gateways.size();
                    server = gateways.get(serverIndex);
                }
                if (channel == null) {
                    connectNow();
                }
            });
        }

        private void send(int packetId, Request request) {
            channel.writeAndFlush(MqttMessageBuilders.publish().topicName(request.topic)
                    .qos(MqttQoS.AT_LEAST_ONCE).messageId(packetId).properties(request.properties)
                    .payload(Unpooled.wrappedBuffer(request.payload)).build());
        }

        private int packetId() {
            while (true) {
                int id = nextPacketId;
                nextPacketId = id == 65_535 ? 1 : id + 1;
                if (!unacknowledged.containsKey(id)) {
                    return id;
                }
            }
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, MqttMessage packet) {
            switch (packet.fixedHeader().messageType()) {
                case CONNACK -> {
                    MqttConnectReturnCode code = ((MqttConnAckMessage) packet).variableHeader().connectReturnCode();
                    if (code == MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_BUSY
                            || code == MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE
                            || code == MqttConnectReturnCode.CONNECTION_REFUSED_CONNECTION_RATE_EXCEEDED) {
                        // as a device would: back off, with jitter, and connect again (channelInactive does)
                        busyConnects.incrementAndGet();
                        backOff = true;
                        ctx.close();
                        return;
                    }
                    if (code != MqttConnectReturnCode.CONNECTION_ACCEPTED) {
                        errors.incrementAndGet();
                        ctx.close();
                        return;
                    }
                    gatewayId = MqttUserProperties.get(((MqttConnAckMessage) packet).variableHeader().properties(),
                            MqttUserProperties.GATEWAY);
                    ctx.writeAndFlush(MqttMessageBuilders.subscribe().messageId(packetId())
                            .addSubscription(MqttQoS.AT_LEAST_ONCE, inbox())
                            .addSubscription(MqttQoS.AT_LEAST_ONCE, "ckc/" + clientId + "/ping").build());
                }
                case SUBACK -> {
                    if (((MqttSubAckMessage) packet).payload().reasonCodes().get(0) == 1) {
                        ready = true;
                        connected.incrementAndGet();
                        unacknowledged.forEach(this::send); // what the last connection left unacknowledged first
                    } else {
                        errors.incrementAndGet();
                    }
                }
                case PUBACK -> {
                    MqttPubReplyMessageVariableHeader reply = (MqttPubReplyMessageVariableHeader) packet.variableHeader();
                    if (unacknowledged.remove(reply.messageId()) != null && (reply.reasonCode() & 0xff) >= 0x80) {
                        refused.incrementAndGet();
                    }
                }
                case PUBLISH -> {
                    if (away) {
                        // it sent DISCONNECT: MQTT 5 4.13 lets it send nothing more, so it cannot acknowledge this,
                        // and takes it on its next connection instead of holding what the gateway thinks it lacks
                        return;
                    }
                    MqttPublishMessage publish = (MqttPublishMessage) packet;
                    // anything but the inbox is the gateway's latency probe: the PUBACK below is what it times
                    if (publish.variableHeader().topicName().equals(inbox())) {
                        delivered(publish);
                    }
                    if (publish.fixedHeader().qosLevel() == MqttQoS.AT_LEAST_ONCE) {
                        ctx.writeAndFlush(MqttMessageBuilders.pubAck().packetId(publish.variableHeader().packetId())
                                .build());
                    }
                }
                case DISCONNECT -> {
                    InetSocketAddress moveTo = serverReference(packet);
                    if (moveTo != null) { // a handover: MQTT 5's "Use another server"
                        server = moveTo;
                        handedOver++;
                        handovers.incrementAndGet();
                    }
                    ctx.close();
                }
                default -> { }
            }
        }

        /** A delivery on the inbox: a repeat dropped by its id, else to the handler, or counted as an echo. */
        private void delivered(MqttPublishMessage publish) {
            UUID id = MqttUserProperties.messageId(publish.variableHeader().properties());
            Deliveries handler = deliveries;
            if (id != null && !deliveryIds.add(id)) {
                duplicatesDropped.incrementAndGet();
            } else if (handler != null) {
                handler.received(index, id, ByteBufUtil.getBytes(publish.payload()));
            } else {
                EchoPayload echo = EchoPayload.decode(ByteBufUtil.getBytes(publish.payload()));
                trips.arrived(echo.node(), echo.seq(),
                        TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - echo.sentNanos()), id);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            channel = null;
            gatewayId = null;
            if (pings != null) {
                pings.cancel(false);
            }
            if (ready) {
                ready = false;
                connected.decrementAndGet();
            }
            if (!closing && !away) {
                boolean busy = backOff;
                backOff = false;
                if (busy) {
                    reconnectIn(1_000, 2_000);
                } else {
                    reconnectIn(0, 250);
                }
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!(cause instanceof java.io.IOException)) { // a reset connection is a lost one, not an error
                errors.incrementAndGet();
            }
            ctx.close();
        }
    }

    /** A QoS 1 publish as the device sends it, again if need be. */
    private record Request(String topic, byte[] payload, MqttProperties properties) {
    }

    /** What the devices do with the deliveries on their inboxes, when not echoes. */
    interface Deliveries {
        /**
         * Device number {@code device} (from {@code firstIndex}) received {@code payload} under {@code messageId} (null
         * when the delivery carried none), repeats dropped.
         */
        void received(int device, UUID messageId, byte[] payload);
    }

    /** The devices hand their deliveries to {@code handler} instead of counting them as echoes. */
    MqttFleet deliveries(Deliveries handler) {
        this.deliveries = handler;
        return this;
    }

    /** The node id of device number {@code device}: its client id, a UUID. */
    UUID nodeId(int device) {
        return UUID.fromString(devices.get(device - firstIndex).clientId);
    }

    /** Device number {@code device} sends {@code payload} to {@code app/<channel>} at QoS 1, once connected. */
    void send(int device, String channel, byte[] payload) {
        devices.get(device - firstIndex).publishTo(channel, payload);
    }

    /** Device number {@code device} reports its context (JSON, as {@code ckc/<client-id>/context} takes it). */
    void reportContext(int device, byte[] json) {
        devices.get(device - firstIndex).report(json);
    }

    /** Connected devices per gateway id, as their CONNACKs named it. */
    Map<String, Integer> countsByGateway() {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        for (Device device : devices) {
            String gateway = device.gatewayId;
            if (gateway != null) {
                counts.merge(gateway, 1, Integer::sum);
            }
        }
        return counts;
    }

    /** The most handovers one device followed. */
    int maxHandoversOfADevice() {
        return devices.stream().mapToInt(d -> d.handedOver).max().orElse(0);
    }

    /** Device number {@code device} disconnects on purpose and stays away until {@link #comeBack}. */
    void leave(int device) {
        devices.get(device - firstIndex).leave();
    }

    /** Device number {@code device} connects again, to the next server on its list with {@code move}. */
    void comeBack(int device, boolean move) {
        devices.get(device - firstIndex).comeBack(move);
    }

    /** The server a DISCONNECT's Server Reference names ({@code host:port}), or null. */
    static InetSocketAddress serverReference(MqttMessage disconnect) {
        if (!(disconnect.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader header)
                || !(header.properties().getProperty(MqttProperties.SERVER_REFERENCE)
                instanceof MqttProperties.StringProperty reference)) {
            return null;
        }
        String value = reference.value().split(" ")[0];
        int colon = value.lastIndexOf(':');
        try {
            return colon < 0 ? null
                    : new InetSocketAddress(value.substring(0, colon), Integer.parseInt(value.substring(colon + 1)));
        } catch (IllegalArgumentException notAnAddress) {
            return null;
        }
    }

    @Override
    public void close() throws InterruptedException {
        closing = true;
        for (Device device : devices) {
            device.loop.execute(() -> {
                if (device.channel != null) {
                    device.channel.writeAndFlush(MqttMessage.DISCONNECT);
                    device.channel.close();
                }
            });
        }
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
