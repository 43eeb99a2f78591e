package io.ckc.gateway;

import io.ckc.client.ClientConfig;
import io.ckc.client.ClientTransport;
import io.ckc.client.MessageRejectedException;
import io.ckc.client.MobileNode;
import io.ckc.client.NodeListener;
import io.ckc.client.ReceivedMessage;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.mrudp.ReliabilityConfig;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.ckc.testing.LossyLink;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.DatagramSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The gateway on a real in-JVM Kafka broker, driven by real client SDK nodes over loopback UDP. */
class GatewayITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static EventLoopGroup clientLoops;
    private final RecordFormat format = new RecordFormat();

    @BeforeAll
    static void startLoops() {
        clientLoops = DatagramTransport.current().newGroup(2);
    }

    @AfterAll
    static void stopLoops() {
        clientLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    /** Collects what nodes receive, per node, in arrival order. */
    static final class Inbox implements NodeListener {
        final Map<UUID, List<String>> received = new ConcurrentHashMap<>();
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final List<Body.Outgoing> unsent = new CopyOnWriteArrayList<>();
        final CountDownLatch connected;

        Inbox(int nodes) {
            connected = new CountDownLatch(nodes);
        }

        @Override
        public void connected(MobileNode node) {
            connected.countDown();
        }

        @Override
        public void newMessageReceived(MobileNode node, ReceivedMessage message) {
            received.computeIfAbsent(node.id(), k -> Collections.synchronizedList(new ArrayList<>()))
                    .add(new String(message.payload()));
        }

        @Override
        public void unsentMessages(MobileNode node, List<Body.Outgoing> messages) {
            unsent.addAll(messages);
        }

        @Override
        public void internalException(MobileNode node, Throwable error) {
            errors.add(error);
        }
    }

    @Test
    void overALinkDroppingAndReorderingTwentyPercentEveryMessageArrivesOnceInOrderBothWays() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-lossy"));
        AtomicLong dropped = new AtomicLong();
        ReliabilityConfig fast = new ReliabilityConfig(40, 400, 30, 32, 128);
        GatewayConfig config = GatewayConfig.forTest("gw-lossy", KAFKA.bootstrapServers(), topics)
                .toBuilder().sessionTimeoutMs(30_000).reliability(fast).build();
        int nodes = 5;
        int messages = 60;
        Inbox inbox = new Inbox(nodes);
        try (Gateway gateway = Gateway.start(config, () -> new LossyLink(1, 0.2, 0.2, dropped));
             ClientTransport transport = ClientTransport.open(clientLoops, () -> new LossyLink(2, 0.2, 0.2, dropped));
             KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            List<MobileNode> fleet = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                MobileNode node = new MobileNode(UUID.randomUUID(), transport, gateway.udpAddress(), inbox,
                        ClientConfig.DEFAULT.withReliability(fast));
                node.connect();
                fleet.add(node);
            }
            assertThat(inbox.connected.await(30, TimeUnit.SECONDS)).isTrue();
            for (int m = 0; m < messages; m++) {
                for (MobileNode node : fleet) {
                    node.send("echo", ("up-" + m).getBytes(), Context.position(1, 2));
                    Unicast down = Unicast.of(UUID.randomUUID().toString(), "test", node.id().toString(),
                            ("down-" + m).getBytes());
                    producer.send(new ProducerRecord<>(topics.gateway("gw-lossy"), node.id().toString(),
                            format.write(new GatewayCommand.Deliver(down, node.epoch(), null))));
                }
            }
            producer.flush();

            // At least once: a node whose session timed out on this link sends what was not acknowledged again, with
            // its message id, on its next session; an application drops the repeat by (mnId, messageId), as here.
            Map<String, List<String>> perNode = new java.util.concurrent.ConcurrentHashMap<>();
            java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
            List<String> wrong = new java.util.concurrent.CopyOnWriteArrayList<>();
            try (AutoCloseable follow = KAFKA.follow(topics.app("echo"), record -> {
                AppMessage message;
                try {
                    message = format.read(record.value(), AppMessage.class);
                } catch (java.io.IOException e) {
                    wrong.add("unreadable: " + e.getMessage());
                    return;
                }
                if (!record.key().equals(message.mnId()) || !Context.position(1, 2).equals(message.context())) {
                    wrong.add(record.key() + " " + message + " " + message.context());
                }
                if (seen.add(message.mnId() + "/" + message.messageId())) {
                    perNode.computeIfAbsent(message.mnId(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                            .add(new String(message.payload()));
                }
            })) {
                io.ckc.testing.Await.until("every message upstream", (int) WAIT.toSeconds(),
                        () -> seen.size() >= nodes * messages);
            }
            assertThat(wrong).as("records keyed by another node, or without the node's context").isEmpty();
            List<String> expectedUp = new ArrayList<>();
            List<String> expectedDown = new ArrayList<>();
            for (int m = 0; m < messages; m++) {
                expectedUp.add("up-" + m);
                expectedDown.add("down-" + m);
            }
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline
                    && inbox.received.values().stream().mapToInt(List::size).sum() < nodes * messages) {
                Thread.sleep(100);
            }
            for (MobileNode node : fleet) {
                assertThat(perNode.get(node.id().toString())).as("upstream of %s", node.id())
                        .containsExactlyElementsOf(expectedUp);
                assertThat(inbox.received.get(node.id())).as("downstream of %s", node.id())
                        .containsExactlyElementsOf(expectedDown);
            }
            assertThat(dropped.get()).as("the link really dropped datagrams").isGreaterThan(100);
            assertThat(inbox.unsent).isEmpty();
            fleet.forEach(MobileNode::close);
        }
    }

    /** The probes' view of a running gateway: its loops answer and its producer holds a connection to the broker. */
    @Test
    void aRunningGatewayConnectedToKafkaIsLiveAndReady() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-health"));
        GatewayConfig config = GatewayConfig.forTest("gw-health", KAFKA.bootstrapServers(), topics).toBuilder()
                .metricsPort(0).build();
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        try (Gateway gateway = Gateway.start(config)) {
            String base = "http://" + config.udpHost() + ":" + gateway.metricsPort();
            Await.until("/health/ready answers 200", 30, () -> status(http, base + "/health/ready") == 200);
            assertThat(status(http, base + "/health/live")).isEqualTo(200);
            assertThat(status(http, base + "/metrics")).isEqualTo(200);
        }
    }

    private static int status(java.net.http.HttpClient http, String url) {
        try {
            return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (java.io.IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Test
    void aNodeThatChangesSourcePortMidStreamKeepsItsSession() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-move"));
        Inbox inbox = new Inbox(1);
        try (Gateway gateway = Gateway.start(GatewayConfig.forTest("gw-move", KAFKA.bootstrapServers(), topics));
             ClientTransport first = ClientTransport.open(clientLoops);
             ClientTransport second = ClientTransport.open(clientLoops);
             KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            MobileNode node = connectedNode(first, gateway, inbox);
            for (int m = 0; m < 20; m++) {
                node.send("echo", ("m-" + m).getBytes(), null);
            }
            node.migrate(second);
            assertThat(second.localAddress().getPort()).isNotEqualTo(first.localAddress().getPort());
            for (int m = 20; m < 40; m++) {
                node.send("echo", ("m-" + m).getBytes(), null);
            }
            // A delivery after the move reaches the node at its new port.
            producer.send(new ProducerRecord<>(topics.gateway("gw-move"), node.id().toString(), format.write(
                    new GatewayCommand.Deliver(Unicast.of(UUID.randomUUID().toString(), "t", node.id().toString(),
                            "after-move".getBytes()), node.epoch(), null))));
            producer.flush();

            List<ConsumerRecord<String, byte[]>> upstream = KAFKA.read(topics.app("echo"), 40, WAIT);
            assertThat(upstream).hasSize(40);
            List<String> payloads = new ArrayList<>();
            for (ConsumerRecord<String, byte[]> record : upstream) {
                payloads.add(new String(format.read(record.value(), AppMessage.class).payload()));
            }
            assertThat(payloads).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 40)
                    .mapToObj(i -> "m-" + i).toList());
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline && !inbox.received.containsKey(node.id())) {
                Thread.sleep(50);
            }
            assertThat(inbox.received.get(node.id())).containsExactly("after-move");
            List<ConsumerRecord<String, byte[]>> events = KAFKA.read(topics.mnEvents(), 1, WAIT);
            assertThat(events).hasSize(1); // one Connected, no new session for the new port
            assertThat(format.read(events.get(0).value(), MnEvent.class).type())
                    .isEqualTo(MnEvent.Type.CONNECTED);
            node.close();
        }
    }

    @Test
    void malformedDatagramsAreCountedAndDroppedWithoutDisturbingSessions() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-junk"));
        Inbox inbox = new Inbox(1);
        try (Gateway gateway = Gateway.start(GatewayConfig.forTest("gw-junk", KAFKA.bootstrapServers(), topics));
             ClientTransport transport = ClientTransport.open(clientLoops);
             DatagramSocket attacker = new DatagramSocket()) {
            MobileNode node = connectedNode(transport, gateway, inbox);
            for (int i = 0; i < 10; i++) {
                node.send("echo", ("ok-" + i).getBytes(), null);
                byte[] junk = new byte[i * 7];
                attacker.send(new java.net.DatagramPacket(junk, junk.length, gateway.udpAddress()));
            }
            assertThat(KAFKA.read(topics.app("echo"), 10, WAIT)).hasSize(10);
            assertThat(node.isConnected()).isTrue();
            node.close();
        }
    }

    @Test
    void unknownChannelsAndOversizePayloadsGetClearErrors() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-err"));
        Inbox inbox = new Inbox(1);
        try (Gateway gateway = Gateway.start(GatewayConfig.forTest("gw-err", KAFKA.bootstrapServers(), topics));
             ClientTransport transport = ClientTransport.open(clientLoops)) {
            MobileNode node = connectedNode(transport, gateway, inbox);
            node.send("no-such-channel", "x".getBytes(), null);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline && inbox.errors.isEmpty()) {
                Thread.sleep(20);
            }
            assertThat(inbox.errors).singleElement().isInstanceOfSatisfying(MessageRejectedException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_CHANNEL));
            assertThat(inbox.unsent).singleElement().isInstanceOfSatisfying(Body.MnMessage.class,
                    m -> assertThat(m.channel()).isEqualTo("no-such-channel"));
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> node.send("echo", new byte[GatewayConfig.forTest("gw-err", KAFKA.bootstrapServers(), topics).maxPayloadBytes() + 1], null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> node.send("../ckc.to-mn", new byte[1], null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid channel");
            assertThat(node.isConnected()).isTrue();
            node.close();
        }
    }

    @Test
    void gatewaysHostedInOneProcessServeTheirOwnNodesOnSharedLoopsAndProducerAndOneStoppingLeavesTheOtherServing()
            throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-h1", "gw-h2"));
        GatewayConfig firstConfig = GatewayConfig.forTest("gw-h1", KAFKA.bootstrapServers(), topics);
        GatewayConfig secondConfig = GatewayConfig.forTest("gw-h2", KAFKA.bootstrapServers(), topics);
        GatewayHost host = GatewayHost.open(List.of(firstConfig, secondConfig));
        Inbox inbox = new Inbox(2);
        try (ClientTransport transport = ClientTransport.open(clientLoops);
             KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            Gateway first = Gateway.start(firstConfig, host, null);
            try (Gateway second = Gateway.start(secondConfig, host, null)) {
                assertThat(producerThreads()).as("one Kafka producer for the hosted gateways")
                        .contains(host.producerClientId())
                        .doesNotContain("ckc-gateways-gw-h1", "ckc-gateways-gw-h2");
                MobileNode one = new MobileNode(UUID.randomUUID(), transport, first.udpAddress(), inbox, ClientConfig.DEFAULT);
                MobileNode two = new MobileNode(UUID.randomUUID(), transport, second.udpAddress(), inbox, ClientConfig.DEFAULT);
                one.connect();
                two.connect();
                assertThat(inbox.connected.await(30, TimeUnit.SECONDS)).isTrue();
                one.send("echo", "from-one".getBytes(), null);
                two.send("echo", "from-two".getBytes(), null);
                Map<String, String> gatewayOf = new HashMap<>();
                for (ConsumerRecord<String, byte[]> record : KAFKA.read(topics.app("echo"), 2, WAIT)) {
                    AppMessage message = format.read(record.value(), AppMessage.class);
                    gatewayOf.put(new String(message.payload()), message.gatewayId());
                }
                assertThat(gatewayOf).containsOnly(Map.entry("from-one", "gw-h1"), Map.entry("from-two", "gw-h2"));

                first.close();
                assertThat(host.loops().isShuttingDown()).as("the host's loops outlive one of its gateways").isFalse();
                assertThat(producerThreads()).as("the host's producer outlives one of its gateways")
                        .contains(host.producerClientId());
                two.send("echo", "after-first-stopped".getBytes(), null);
                producer.send(new ProducerRecord<>(topics.gateway("gw-h2"), two.id().toString(), format.write(
                        new GatewayCommand.Deliver(Unicast.of(UUID.randomUUID().toString(), "t", two.id().toString(),
                                "to-two".getBytes()), two.epoch(), null))));
                producer.flush();
                assertThat(KAFKA.read(topics.app("echo"), 3, WAIT)).extracting(r -> new String(
                        format.read(r.value(), AppMessage.class).payload())).contains("after-first-stopped");
                Await.until("the delivery through the gateway left running", 60,
                        () -> inbox.received.getOrDefault(two.id(), List.of()).contains("to-two"));
                two.close();
            }
        } finally {
            host.close();
        }
        assertThat(producerThreads()).as("the host closes its producer").doesNotContain(host.producerClientId());
    }

    /** The client ids of the Kafka producers alive in this JVM, from their network threads' names. */
    private static List<String> producerThreads() {
        String prefix = "kafka-producer-network-thread | ";
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith(prefix)).map(name -> name.substring(prefix.length())).toList();
    }

    /** A node with default settings, connected to the gateway. */
    @Test
    void deliveredReceiptsForAcknowledgedMessagesExpiredOnesAreNotSentAndAFailedConnectionHandsItsMiniBufferToTheMtd()
            throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of(), List.of("gw-mini"));
        GatewayConfig config = GatewayConfig.forTest("gw-mini", KAFKA.bootstrapServers(), topics)
                .toBuilder().sessionTimeoutMs(1_500).reliability(ReliabilityConfig.DEFAULT).miniBuffer(true).build();
        Inbox inbox = new Inbox(1);
        ClientTransport transport = ClientTransport.open(clientLoops);
        try (Gateway gateway = Gateway.start(config);
             KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            MobileNode node = connectedNode(transport, gateway, inbox);
            String mn = node.id().toString();
            long now = System.currentTimeMillis();
            for (int m = 0; m < 3; m++) {
                deliver(producer, topics, node, new Unicast("d-" + m, "app-1", mn, ("d-" + m).getBytes(), null, now, true),
                        now + 60_000);
            }
            deliver(producer, topics, node, new Unicast("late", "app-1", mn, "late".getBytes(), 1_000L, now - 5_000, true),
                    now - 4_000);
            List<Receipt> receipts = KAFKA.readReceipts(topics.delivered(), 3, WAIT);
            assertThat(receipts).extracting(Receipt::messageId).containsExactlyInAnyOrder("d-0", "d-1", "d-2");
            assertThat(receipts).allMatch(r -> r.outcome() == Receipt.Outcome.DELIVERED && r.sender().equals("app-1")
                    && "gw-mini".equals(r.gatewayId()));
            assertThat(inbox.received.get(node.id())).containsExactly("d-0", "d-1", "d-2");

            transport.close(); // the node falls silent: no Disconnect, the session times out
            List<UnsentMessage> unsent = KAFKA.readJson(topics.unsent(), 3, WAIT, UnsentMessage.class);
            assertThat(unsent).extracting(u -> u.unicast().messageId(), UnsentMessage::reason).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("late", UnsentMessage.Reason.EXPIRED),
                    org.assertj.core.groups.Tuple.tuple("d-1", UnsentMessage.Reason.CONNECTION_BROKEN),
                    org.assertj.core.groups.Tuple.tuple("d-2", UnsentMessage.Reason.CONNECTION_BROKEN));
            assertThat(inbox.received.get(node.id())).doesNotContain("late");
        }
    }

    private void deliver(KafkaProducer<String, byte[]> producer, Topics topics, MobileNode node, Unicast unicast,
                         long expiresAt) {
        producer.send(new ProducerRecord<>(topics.gateway("gw-mini"), unicast.recipient(),
                format.write(new GatewayCommand.Deliver(unicast, node.epoch(), expiresAt))));
        producer.flush();
    }

    private static MobileNode connectedNode(ClientTransport transport, Gateway gateway, Inbox inbox)
            throws InterruptedException {
        MobileNode node = new MobileNode(UUID.randomUUID(), transport, gateway.udpAddress(), inbox,
                ClientConfig.DEFAULT);
        node.connect();
        assertThat(inbox.connected.await(30, TimeUnit.SECONDS)).isTrue();
        return node;
    }
}
