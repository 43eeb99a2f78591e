package io.ckc.gateway;

import io.ckc.client.ClientConfig;
import io.ckc.client.ClientTransport;
import io.ckc.client.MobileNode;
import io.ckc.client.NodeCredentials;
import io.ckc.gateway.core.SecurityOptions;
import io.ckc.protocol.auth.CredentialStore;
import io.ckc.protocol.auth.Grants;
import io.ckc.protocol.auth.NodeKeys;
import io.ckc.protocol.dtls.DatagramQueue;
import io.ckc.protocol.dtls.DtlsPeers;
import io.ckc.protocol.dtls.DtlsRecords;
import io.ckc.protocol.dtls.DtlsSession;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.FrameCodec;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.netty.DatagramTransport;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Authenticated sessions (DTLS 1.2, a pre-shared key per node, connection IDs) between real SDK nodes and a gateway
 * on a real in-JVM Kafka broker: what the node sends and receives is sealed, and no datagram from anyone else, a
 * copy of the node's own included, changes the node's session.
 */
class DtlsGatewayITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String FLEET = "test";
    private static EventLoopGroup clientLoops;
    private final RecordFormat format = new RecordFormat();
    private final byte[] fleetKey = NodeKeys.newSecret();

    @TempDir
    Path dir;

    @BeforeAll
    static void startLoops() {
        clientLoops = DatagramTransport.current().newGroup(2);
    }

    @AfterAll
    static void stopLoops() {
        clientLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    /** The sealed datagrams a client socket sent, as they left it. */
    static final class Wire extends ChannelOutboundHandlerAdapter {
        final List<byte[]> sent = new CopyOnWriteArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof DatagramPacket packet) {
                sent.add(ByteBufUtil.getBytes(packet.content()));
            }
            ctx.write(msg, promise);
        }
    }

    private Gateway gateway(String id, Topics topics) throws Exception {
        Path store = dir.resolve("credentials.json");
        CredentialStore.putFleet(store, FLEET, fleetKey, Grants.DEFAULT);
        GatewayConfig config = GatewayConfig.forTest(id, KAFKA.bootstrapServers(), topics).toBuilder()
                .security(new SecurityOptions(store.toString(), 64, 256, 60_000, null, null, null)).build();
        return Gateway.start(config);
    }

    /** A DTLS client driven by hand: sends each datagram from {@code socket} to {@code to} while {@code on} says so. */
    private static java.util.function.Consumer<byte[]> sender(DatagramSocket socket, InetSocketAddress to,
                                                              java.util.function.BooleanSupplier on) {
        return datagram -> {
            if (on.getAsBoolean()) {
                try {
                    socket.send(new java.net.DatagramPacket(datagram, datagram.length, to));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        };
    }

    /** Reads {@code socket} on a daemon thread until it closes, handing each datagram and its sender to {@code heard}. */
    private static void readInto(DatagramSocket socket, java.util.function.BiConsumer<byte[], InetSocketAddress> heard) {
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[65_535];
            while (!socket.isClosed()) {
                java.net.DatagramPacket packet = new java.net.DatagramPacket(buffer, buffer.length);
                try {
                    socket.receive(packet);
                } catch (java.io.IOException closed) {
                    return;
                }
                heard.accept(java.util.Arrays.copyOf(buffer, packet.getLength()),
                        (InetSocketAddress) packet.getSocketAddress());
            }
        });
        reader.setDaemon(true);
        reader.start();
    }

    private static double counter(io.prometheus.metrics.core.metrics.Counter counter, String label) {
        return counter.labelValues(label).get();
    }

    private void deliver(KafkaProducer<String, byte[]> producer, Topics topics, String gatewayId, MobileNode node,
                         String payload) {
        producer.send(new ProducerRecord<>(topics.gateway(gatewayId), node.id().toString(), format.write(
                new GatewayCommand.Deliver(Unicast.of(UUID.randomUUID().toString(), "t", node.id().toString(),
                        payload.getBytes(StandardCharsets.UTF_8)), node.epoch(), null))));
        producer.flush();
    }

    private List<String> payloads(List<ConsumerRecord<String, byte[]>> records) throws java.io.IOException {
        List<String> payloads = new java.util.ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            payloads.add(new String(format.read(record.value(), AppMessage.class).payload(), StandardCharsets.UTF_8));
        }
        return payloads;
    }

    private List<MnEvent.Type> events(List<ConsumerRecord<String, byte[]>> records) throws java.io.IOException {
        List<MnEvent.Type> types = new java.util.ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            types.add(format.read(record.value(), MnEvent.class).type());
        }
        return types;
    }

    @Test
    void aNodeWithItsKeyGetsASealedSessionBothWays() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-dtls"));
        Wire wire = new Wire();
        GatewayITCase.Inbox inbox = new GatewayITCase.Inbox(1);
        try (Gateway gateway = gateway("gw-dtls", topics);
             ClientTransport transport = ClientTransport.open(clientLoops, NodeCredentials.fleet(FLEET, fleetKey),
                     () -> wire);
             KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            MobileNode node = new MobileNode(UUID.randomUUID(), transport, gateway.udpAddress(), inbox, ClientConfig.DEFAULT);
            node.connect();
            assertThat(inbox.connected.await(30, TimeUnit.SECONDS)).isTrue();
            for (int m = 0; m < 5; m++) {
                node.send("echo", ("secret-" + m).getBytes(StandardCharsets.UTF_8), null);
            }
            deliver(producer, topics, "gw-dtls", node, "for-the-node");

            assertThat(payloads(KAFKA.read(topics.app("echo"), 5, WAIT)))
                    .containsExactly("secret-0", "secret-1", "secret-2", "secret-3", "secret-4");
            Await.until("the delivery reached the node", 30, () -> inbox.received.containsKey(node.id()));
            assertThat(inbox.received.get(node.id())).containsExactly("for-the-node");
            assertThat(counter(gateway.metrics().dtlsHandshakes, "ok")).isEqualTo(1);
            assertThat(counter(gateway.metrics().dtlsDropped, "forged")).as("an honest node's records all open").isZero();
            assertThat(wire.sent).isNotEmpty().allSatisfy(datagram -> {
                assertThat(datagram[0] & 0xFF).as("a DTLS record, never a plain frame").isNotEqualTo(FrameCodec.MAGIC);
                assertThat(new String(datagram, StandardCharsets.ISO_8859_1)).doesNotContain("secret-");
            });
            node.close();
        }
    }

    @Test
    void framesFromAnyoneButTheNodeAreDroppedAndCountedAndChangeNothing() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-spoof"));
        Wire wire = new Wire();
        GatewayITCase.Inbox inbox = new GatewayITCase.Inbox(1);
        try (Gateway gateway = gateway("gw-spoof", topics);
             ClientTransport transport = ClientTransport.open(clientLoops, NodeCredentials.fleet(FLEET, fleetKey),
                     () -> wire);
             DatagramSocket attacker = new DatagramSocket();
             KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            MobileNode node = new MobileNode(UUID.randomUUID(), transport, gateway.udpAddress(), inbox, ClientConfig.DEFAULT);
            node.connect();
            assertThat(inbox.connected.await(30, TimeUnit.SECONDS)).isTrue();
            node.send("echo", "real".getBytes(StandardCharsets.UTF_8), null);
            assertThat(payloads(KAFKA.read(topics.app("echo"), 1, WAIT))).containsExactly("real");
            long epoch = node.epoch();

            // plain frames naming the node, from another address: a new session, a message, a disconnect
            List<Frame> forgedFrames = List.of(new Frame.Connect(node.id(), epoch + 1),
                    new Frame.Data(node.id(), epoch, 1_000, new Body.MnMessage(UUID.randomUUID(), "echo", null,
                            "injected".getBytes(StandardCharsets.UTF_8))),
                    new Frame.Disconnect(node.id(), epoch));
            for (Frame frame : forgedFrames) {
                ByteBuf encoded = FrameCodec.encode(frame, io.netty.buffer.ByteBufAllocator.DEFAULT);
                byte[] bytes = ByteBufUtil.getBytes(encoded);
                encoded.release();
                attacker.send(new java.net.DatagramPacket(bytes, bytes.length, gateway.udpAddress()));
            }
            // every sealed datagram the node sent so far, replayed from the attacker's address
            List<byte[]> captured = List.copyOf(wire.sent);
            for (byte[] datagram : captured) {
                attacker.send(new java.net.DatagramPacket(datagram, datagram.length, gateway.udpAddress()));
            }
            // one of them altered: fails authentication
            byte[] altered = captured.get(captured.size() - 1).clone();
            altered[altered.length - 1] ^= 1;
            attacker.send(new java.net.DatagramPacket(altered, altered.length, gateway.udpAddress()));

            Await.until("the plain frames counted", 30,
                    () -> counter(gateway.metrics().dtlsDropped, "unauthenticated") >= forgedFrames.size());
            Await.until("the replayed and the altered records counted", 30,
                    () -> counter(gateway.metrics().dtlsDropped, "forged") >= 1);

            // the node's session is as it was: same epoch, same address, its deliveries reach it, no new session
            deliver(producer, topics, "gw-spoof", node, "still-yours");
            Await.until("the delivery reached the node", 30, () -> inbox.received.containsKey(node.id()));
            assertThat(inbox.received.get(node.id())).containsExactly("still-yours");
            assertThat(node.epoch()).isEqualTo(epoch);
            assertThat(node.isConnected()).isTrue();
            node.send("echo", "after".getBytes(StandardCharsets.UTF_8), null);
            assertThat(payloads(KAFKA.read(topics.app("echo"), 2, WAIT))).containsExactly("real", "after");
            List<ConsumerRecord<String, byte[]>> events = KAFKA.read(topics.mnEvents(), 2, Duration.ofSeconds(3));
            assertThat(events(events)).containsExactly(MnEvent.Type.CONNECTED);
            node.close();
        }
    }

    @Test
    void aSessionCarriesOnlyItsOwnNodesFrames() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-own"));
        UUID node = UUID.randomUUID();
        UUID victim = UUID.randomUUID();
        try (Gateway gateway = gateway("gw-own", topics);
             DatagramSocket socket = new DatagramSocket()) {
            // a real node's DTLS session, driven by hand: its frames name another node
            DatagramQueue queue = new DatagramQueue(sender(socket, gateway.udpAddress(), () -> true));
            readInto(socket, queue::offer);
            DtlsSession session = DtlsPeers.connect(queue,
                    io.ckc.protocol.auth.Identity.of(FLEET, node), NodeKeys.fleetNodeKey(fleetKey, FLEET, node), 42L);
            for (Frame frame : List.of(new Frame.Connect(victim, 1), new Frame.Disconnect(victim, 1))) {
                ByteBuf encoded = FrameCodec.encode(frame, io.netty.buffer.ByteBufAllocator.DEFAULT);
                session.send(encoded);
                encoded.release();
            }
            Await.until("both frames naming another node dropped", 30,
                    () -> counter(gateway.metrics().dtlsDropped, "wrong_node") >= 2);
            assertThat(KAFKA.read(topics.mnEvents(), 1, Duration.ofSeconds(2))).as("no session for the victim").isEmpty();
        }
    }

    @Test
    void aNodeThatMovesToAnotherAddressKeepsItsSession() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-roam"));
        GatewayITCase.Inbox inbox = new GatewayITCase.Inbox(1);
        NodeCredentials credentials = NodeCredentials.fleet(FLEET, fleetKey);
        try (Gateway gateway = gateway("gw-roam", topics);
             ClientTransport first = ClientTransport.open(clientLoops, credentials, null);
             ClientTransport second = ClientTransport.open(clientLoops, credentials, null);
             KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            MobileNode node = new MobileNode(UUID.randomUUID(), first, gateway.udpAddress(), inbox, ClientConfig.DEFAULT);
            node.connect();
            assertThat(inbox.connected.await(30, TimeUnit.SECONDS)).isTrue();
            for (int m = 0; m < 10; m++) {
                node.send("echo", ("m-" + m).getBytes(StandardCharsets.UTF_8), null);
            }
            node.migrate(second);
            for (int m = 10; m < 20; m++) {
                node.send("echo", ("m-" + m).getBytes(StandardCharsets.UTF_8), null);
            }
            assertThat(payloads(KAFKA.read(topics.app("echo"), 20, WAIT))).containsExactlyElementsOf(
                    java.util.stream.IntStream.range(0, 20).mapToObj(i -> "m-" + i).toList());
            deliver(producer, topics, "gw-roam", node, "after-move");
            Await.until("the delivery reached the node at its new address", 30,
                    () -> inbox.received.containsKey(node.id()));
            assertThat(inbox.received.get(node.id())).containsExactly("after-move");
            assertThat(counter(gateway.metrics().dtlsHandshakes, "ok")).as("one handshake: the session moved").isEqualTo(1);
            node.close();
        }
    }

    @Test
    void aNodeMayPublishAndGroupcastOnlyWhereTheStoreGrants() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo", "other"), List.of("gw-rules"));
        UUID nodeId = UUID.randomUUID();
        byte[] secret = NodeKeys.newSecret();
        GatewayITCase.Inbox inbox = new GatewayITCase.Inbox(1);
        try (Gateway gateway = gateway("gw-rules", topics);
             ClientTransport transport = ClientTransport.open(clientLoops, NodeCredentials.of(nodeId, secret), null)) {
            // provisioned after the gateway started: the store is read again when it changes
            CredentialStore.putNode(dir.resolve("credentials.json"), nodeId, NodeKeys.nodeKey(secret, nodeId),
                    new Grants(List.of("app.echo"), List.of()));
            MobileNode node = new MobileNode(nodeId, transport, gateway.udpAddress(), inbox, ClientConfig.DEFAULT);
            node.connect();
            assertThat(inbox.connected.await(30, TimeUnit.SECONDS)).isTrue();
            node.send("other", "not-here".getBytes(StandardCharsets.UTF_8), null);
            node.sendToGroup("grid/cell-1", "nor-here".getBytes(StandardCharsets.UTF_8), null);
            node.send("echo", "here".getBytes(StandardCharsets.UTF_8), null);

            Await.until("both refusals reached the node", 30, () -> inbox.errors.size() >= 2);
            assertThat(inbox.errors).allSatisfy(e -> assertThat(e).isInstanceOfSatisfying(
                    io.ckc.client.MessageRejectedException.class,
                    r -> assertThat(r.code()).isEqualTo(io.ckc.protocol.frame.ErrorCode.NOT_AUTHORIZED)));
            assertThat(payloads(KAFKA.read(topics.app("echo"), 1, WAIT))).containsExactly("here");
            assertThat(KAFKA.read(topics.app("other"), 1, Duration.ofSeconds(2))).isEmpty();
            assertThat(gateway.metrics().rejected.labelValues("NOT_AUTHORIZED").get()).isEqualTo(2);
            node.close();
        }
    }

    @Test
    void anMqttDeviceConnectsOverTlsWithItsKeyAsPasswordAndNoOtherDoes() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-mqtts"));
        Path store = dir.resolve("credentials.json");
        Path keystore = dir.resolve("gateway.p12");
        io.ckc.gateway.mqtt.GatewayKeystore.selfSigned(keystore, "changeit");
        UUID device = io.ckc.gateway.mqtt.DeviceTopics.nodeId("sensor-1");
        byte[] secret = NodeKeys.newSecret();
        byte[] key = NodeKeys.nodeKey(secret, device);
        CredentialStore.putNode(store, device, key, Grants.DEFAULT);
        GatewayConfig config = GatewayConfig.forTest("gw-mqtts", KAFKA.bootstrapServers(), topics).toBuilder()
                .mqttPort(0).security(new SecurityOptions(store.toString(), 64, 256, 60_000, keystore.toString(),
                        "changeit", null)).build();
        try (Gateway gateway = Gateway.start(config)) {
            String url = "ssl://127.0.0.1:" + gateway.mqttAddress().orElseThrow().getPort();
            javax.net.ssl.SSLSocketFactory tls = trusting(keystore, "changeit");
            String password = java.util.Base64.getEncoder().encodeToString(key);

            org.eclipse.paho.mqttv5.client.MqttClient client = new org.eclipse.paho.mqttv5.client.MqttClient(url,
                    "sensor-1", new org.eclipse.paho.mqttv5.client.persist.MemoryPersistence());
            org.eclipse.paho.mqttv5.client.MqttConnectionOptions options = new org.eclipse.paho.mqttv5.client.MqttConnectionOptions();
            options.setSocketFactory(tls);
            options.setUserName(device.toString());
            options.setPassword(password.getBytes(StandardCharsets.UTF_8));
            client.connect(options);
            client.publish("app/echo", "over-tls".getBytes(StandardCharsets.UTF_8), 1, false);
            assertThat(payloads(KAFKA.read(topics.app("echo"), 1, WAIT))).containsExactly("over-tls");
            client.disconnect();
            client.close();

            org.eclipse.paho.mqttv5.client.MqttClient impostor = new org.eclipse.paho.mqttv5.client.MqttClient(url,
                    "sensor-1", new org.eclipse.paho.mqttv5.client.persist.MemoryPersistence());
            options.setPassword(java.util.Base64.getEncoder().encodeToString(NodeKeys.newSecret())
                    .getBytes(StandardCharsets.UTF_8));
            assertThatThrownBy(() -> impostor.connect(options))
                    .isInstanceOfSatisfying(org.eclipse.paho.mqttv5.common.MqttException.class,
                            e -> assertThat(e.getReasonCode()).as("Bad User Name or Password").isEqualTo(0x86));
            impostor.close();
            assertThat(gateway.metrics().connectsRefused.labelValues("bad_credentials").get()).isEqualTo(1);
        }
    }

    @Test
    void anMqttDeviceWithACertificateOfTheTrustedAuthorityNeedsNoPasswordAndNoOtherCertificateDoes() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-certs"));
        Path store = dir.resolve("credentials.json");
        Path keystore = dir.resolve("gateway.p12");
        Path authority = dir.resolve("device-ca.p12");
        io.ckc.gateway.mqtt.GatewayKeystore.selfSigned(keystore, "changeit");
        io.ckc.gateway.mqtt.DeviceCertificates.authority(authority, "ca-secret");
        UUID device = io.ckc.gateway.mqtt.DeviceTopics.nodeId("meter-7");
        CredentialStore.putFleet(store, FLEET, fleetKey, Grants.DEFAULT);
        Path known = dir.resolve("meter-7.p12");
        io.ckc.gateway.mqtt.DeviceCertificates.issue(authority, "ca-secret", FLEET + "/" + device, known, "device-secret");
        // signed by the same authority, but for an identity the store does not know
        Path unknown = dir.resolve("stranger.p12");
        io.ckc.gateway.mqtt.DeviceCertificates.issue(authority, "ca-secret", "elsewhere/" + device, unknown, "device-secret");
        // the right identity, but signed by an authority the gateway does not trust
        Path otherAuthority = dir.resolve("other-ca.p12");
        io.ckc.gateway.mqtt.DeviceCertificates.authority(otherAuthority, "ca-secret");
        Path forged = dir.resolve("forged.p12");
        io.ckc.gateway.mqtt.DeviceCertificates.issue(otherAuthority, "ca-secret", FLEET + "/" + device, forged, "device-secret");
        assertThat(dir.resolve("meter-7-key.pem")).content().startsWith("-----BEGIN PRIVATE KEY-----");

        GatewayConfig config = GatewayConfig.forTest("gw-certs", KAFKA.bootstrapServers(), topics).toBuilder()
                .mqttPort(0).security(new SecurityOptions(store.toString(), 64, 256, 60_000, keystore.toString(),
                        "changeit", io.ckc.gateway.mqtt.GatewayKeystore.certificate(authority).toString())).build();
        try (Gateway gateway = Gateway.start(config)) {
            String url = "ssl://127.0.0.1:" + gateway.mqttAddress().orElseThrow().getPort();
            org.eclipse.paho.mqttv5.client.MqttClient client = new org.eclipse.paho.mqttv5.client.MqttClient(url,
                    "meter-7", new org.eclipse.paho.mqttv5.client.persist.MemoryPersistence());
            org.eclipse.paho.mqttv5.client.MqttConnectionOptions options = new org.eclipse.paho.mqttv5.client.MqttConnectionOptions();
            options.setSocketFactory(trusting(keystore, "changeit", known, "device-secret"));
            client.connect(options); // no username, no password
            client.publish("app/echo", "by-certificate".getBytes(StandardCharsets.UTF_8), 1, false);
            assertThat(payloads(KAFKA.read(topics.app("echo"), 1, WAIT))).containsExactly("by-certificate");
            client.disconnect();
            client.close();

            org.eclipse.paho.mqttv5.client.MqttClient stranger = new org.eclipse.paho.mqttv5.client.MqttClient(url,
                    "meter-7", new org.eclipse.paho.mqttv5.client.persist.MemoryPersistence());
            options.setSocketFactory(trusting(keystore, "changeit", unknown, "device-secret"));
            assertThatThrownBy(() -> stranger.connect(options))
                    .isInstanceOfSatisfying(org.eclipse.paho.mqttv5.common.MqttException.class,
                            e -> assertThat(e.getReasonCode()).as("Bad User Name or Password").isEqualTo(0x86));
            stranger.close();
            assertThat(gateway.metrics().connectsRefused.labelValues("bad_credentials").get()).isEqualTo(1);

            org.eclipse.paho.mqttv5.client.MqttClient impostor = new org.eclipse.paho.mqttv5.client.MqttClient(url,
                    "meter-7", new org.eclipse.paho.mqttv5.client.persist.MemoryPersistence());
            options.setSocketFactory(trusting(keystore, "changeit", forged, "device-secret"));
            assertThatThrownBy(() -> impostor.connect(options)).as("TLS refuses a certificate of another authority")
                    .isInstanceOf(org.eclipse.paho.mqttv5.common.MqttException.class);
            impostor.close();
            assertThat(gateway.metrics().connectsRefused.labelValues("bad_credentials").get()).isEqualTo(1);
        }
    }

    /**
     * TLS that trusts the gateway's self-signed certificate and presents the device's certificate (none: a null
     * device keystore).
     */
    private static javax.net.ssl.SSLSocketFactory trusting(Path keystore, String password, Path device,
                                                           String devicePassword) throws Exception {
        javax.net.ssl.KeyManager[] presented = null;
        if (device != null) {
            java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
            try (var in = java.nio.file.Files.newInputStream(device)) {
                keys.load(in, devicePassword.toCharArray());
            }
            javax.net.ssl.KeyManagerFactory factory = javax.net.ssl.KeyManagerFactory.getInstance(
                    javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            factory.init(keys, devicePassword.toCharArray());
            presented = factory.getKeyManagers();
        }
        java.security.KeyStore trusted = java.security.KeyStore.getInstance("PKCS12");
        try (var in = java.nio.file.Files.newInputStream(keystore)) {
            trusted.load(in, password.toCharArray());
        }
        javax.net.ssl.TrustManagerFactory factory = javax.net.ssl.TrustManagerFactory.getInstance(
                javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trusted);
        javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
        context.init(presented, factory.getTrustManagers(), null);
        return context.getSocketFactory();
    }

    /** TLS that trusts the gateway's self-signed certificate. */
    private static javax.net.ssl.SSLSocketFactory trusting(Path keystore, String password) throws Exception {
        return trusting(keystore, password, null, null);
    }

    /**
     * Hands the socket's second handshake, as it sends its first ClientHello, the cookie the gateway gave the first
     * one, numbered as the answer to a later ClientHello: what a handshake that gives up leaves in flight for the next
     * one on its socket (its last ClientHello goes out as it ends, and the gateway answers it).
     */
    static final class StaleCookie extends ChannelDuplexHandler {
        private byte[] stale;
        private InetSocketAddress gateway;
        volatile boolean handedOver;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (stale == null && msg instanceof DatagramPacket packet && DtlsRecords.isHelloVerifyRequest(packet.content())) {
                stale = ByteBufUtil.getBytes(packet.content());
                stale[10] = 7; // the record sequence number of the ClientHello it answers (RFC 6347 4.2.1)
                gateway = packet.sender();
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            boolean firstHello = msg instanceof DatagramPacket packet && DtlsRecords.contentType(packet.content())
                    == DtlsRecords.HANDSHAKE && DtlsRecords.epoch(packet.content()) == 0
                    && DtlsRecords.sequenceNumber(packet.content()) == 0;
            ctx.write(msg, promise);
            if (firstHello && stale != null && !handedOver) {
                handedOver = true;
                ctx.fireChannelRead(new DatagramPacket(Unpooled.wrappedBuffer(stale), null, gateway));
            }
        }
    }

    @Test
    void aCookieForAnEarlierHandshakeOnTheSocketDoesNotHoldUpTheNextOne() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-stale"));
        StaleCookie link = new StaleCookie();
        GatewayITCase.Inbox first = new GatewayITCase.Inbox(1);
        GatewayITCase.Inbox second = new GatewayITCase.Inbox(1);
        try (Gateway gateway = gateway("gw-stale", topics);
             ClientTransport transport = ClientTransport.open(clientLoops, NodeCredentials.fleet(FLEET, fleetKey),
                     () -> link)) {
            MobileNode a = new MobileNode(UUID.randomUUID(), transport, gateway.udpAddress(), first, ClientConfig.DEFAULT);
            a.connect();
            assertThat(first.connected.await(30, TimeUnit.SECONDS)).isTrue();
            MobileNode b = new MobileNode(UUID.randomUUID(), transport, gateway.udpAddress(), second, ClientConfig.DEFAULT);
            b.connect();
            // Taken for its own, the stale cookie failed the handshake: 10 s until it gave up, then a new one.
            assertThat(second.connected.await(5, TimeUnit.SECONDS)).as("connected before a handshake gives up").isTrue();
            assertThat(link.handedOver).isTrue();
            assertThat(transport.dtlsDropped()).as("the stale cookie, dropped and counted").isEqualTo(1);
            assertThat(counter(gateway.metrics().dtlsHandshakes, "ok")).isEqualTo(2);
            a.close();
            b.close();
        }
    }

    @Test
    void aNodeTheStoreDoesNotKnowOrWithAWrongKeyGetsNoSession() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-deny"));
        GatewayITCase.Inbox inbox = new GatewayITCase.Inbox(2);
        try (Gateway gateway = gateway("gw-deny", topics);
             ClientTransport otherFleet = ClientTransport.open(clientLoops, NodeCredentials.fleet("other", fleetKey), null);
             ClientTransport wrongKey = ClientTransport.open(clientLoops,
                     NodeCredentials.fleet(FLEET, NodeKeys.newSecret()), null)) {
            MobileNode stranger = new MobileNode(UUID.randomUUID(), otherFleet, gateway.udpAddress(), inbox, ClientConfig.DEFAULT);
            MobileNode impostor = new MobileNode(UUID.randomUUID(), wrongKey, gateway.udpAddress(), inbox, ClientConfig.DEFAULT);
            stranger.connect();
            impostor.connect();
            Await.until("both handshakes failed", 40, () -> counter(gateway.metrics().dtlsHandshakes, "failed") >= 2);
            assertThat(inbox.connected.getCount()).isEqualTo(2);
            assertThat(counter(gateway.metrics().dtlsHandshakes, "ok")).isZero();
            assertThat(KAFKA.read(topics.mnEvents(), 1, Duration.ofSeconds(2))).isEmpty();
            stranger.close();
            impostor.close();
        }
    }
}
