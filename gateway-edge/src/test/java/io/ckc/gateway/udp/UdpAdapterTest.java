package io.ckc.gateway.udp;

import io.ckc.gateway.GatewayConfig;
import io.ckc.gateway.core.FakePublisher;
import io.ckc.gateway.core.GatewayCore;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.gateway.core.RateLimits;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.FrameCodec;
import io.ckc.protocol.frame.GatewayAddress;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.records.GatewayList;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import io.ckc.testing.Await;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The reliable-UDP adapter on an embedded channel: datagrams in, core calls; core calls, datagrams out. */
class UdpAdapterTest {

    private static final InetSocketAddress GATEWAY = new InetSocketAddress("127.0.0.1", 5500);
    private static final InetSocketAddress NODE = new InetSocketAddress("127.0.0.1", 40000);
    private static final InetSocketAddress MOVED = new InetSocketAddress("127.0.0.2", 40001);

    private final FakePublisher publisher = new FakePublisher(Set.of("echo"));
    private final GatewayMetrics metrics = new GatewayMetrics("gw-u", new PrometheusRegistry());
    private final UUID node = UUID.randomUUID();
    private EmbeddedChannel channel;
    private GatewayCore core;
    private UdpShard shard;

    @BeforeEach
    void wire() {
        wire(GatewayConfig.forTest("gw-u", "unused:9092", Topics.DEFAULT));
    }

    private void wire(GatewayConfig config) {
        if (shard != null) {
            nothingLeft();
        }
        channel = new EmbeddedChannel();
        core = new GatewayCore(config.core(), publisher, metrics, List.of(channel.eventLoop()));
        shard = new UdpShard(core.shard(0), config.reliability(), metrics, UdpShard.NodeRights.INSECURE);
        UdpShard[] shards = {shard};
        channel.pipeline().addLast(new UdpInitializer(new UdpFrameHandler(core, shards, metrics, true), metrics, null, null));
        channel.runPendingTasks(); // the initializer installs the pipeline
        shard.bind(channel);
    }

    @AfterEach
    void nothingLeft() {
        shard.stop();
        channel.runPendingTasks();
        assertFalse(channel.finish());
    }

    private void receive(Frame frame, InetSocketAddress from) {
        channel.writeInbound(new DatagramPacket(FrameCodec.encode(frame, channel.alloc()), GATEWAY, from));
        channel.runPendingTasks();
    }

    /** The datagrams the gateway sent, decoded, with where they went. */
    private List<Sent> sent() {
        channel.runPendingTasks();
        List<Sent> out = new ArrayList<>();
        DatagramPacket packet;
        while ((packet = channel.readOutbound()) != null) {
            try {
                out.add(new Sent(FrameCodec.decode(packet.content()), packet.recipient()));
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                packet.release();
            }
        }
        return out;
    }

    record Sent(Frame frame, InetSocketAddress to) {
    }

    private void connect() {
        receive(new Frame.Connect(node, 1), NODE);
        assertThat(sent()).singleElement().satisfies(s -> assertThat(s.frame()).isInstanceOf(Frame.ConnectAck.class));
    }

    @Test
    void aConnectIsAnsweredOnlyOnceTheCoreHasTheConnectedEventInKafka() {
        publisher.hold();
        receive(new Frame.Connect(node, 1), NODE);
        assertThat(publisher.of(MnEvent.class)).hasSize(1);
        assertThat(sent()).isEmpty();

        publisher.completeHeld();
        assertThat(sent()).singleElement().satisfies(s -> {
            assertThat(s.frame()).isEqualTo(new Frame.ConnectAck(node, 1, "gw-u", 16 * 1024));
            assertThat(s.to()).isEqualTo(NODE);
        });
        receive(new Frame.Connect(node, 1), NODE); // our ack was lost: the node asks again
        assertThat(sent()).singleElement().satisfies(s -> assertThat(s.frame()).isInstanceOf(Frame.ConnectAck.class));
    }

    @Test
    void connectsFromOneAddressBeyondItsShareAreRefusedAndAnsweredOnceASecondWhileAnotherAddressConnects() {
        wire(GatewayConfig.forTest("gw-u", "unused:9092", Topics.DEFAULT).toBuilder()
                .limits(new RateLimits(0, 0, 1, 1, 0, 0, 0)).build());
        receive(new Frame.Connect(node, 1), NODE);
        assertThat(sent()).singleElement().satisfies(s -> assertThat(s.frame()).isInstanceOf(Frame.ConnectAck.class));

        UUID second = UUID.randomUUID();
        InetSocketAddress sameAddress = new InetSocketAddress(NODE.getAddress(), NODE.getPort() + 1);
        receive(new Frame.Connect(second, 1), sameAddress);
        assertThat(sent()).singleElement().satisfies(s -> assertThat(s.frame()).isEqualTo(new Frame.Error(second, 1,
                ErrorCode.BUSY, 0, "too many new sessions from your address: try again later")));
        assertThat(metrics.connectsRefused.labelValues("address_rate").get()).isEqualTo(1.0);
        for (int i = 0; i < 100; i++) { // a flood from that address: counted, and answered no more this second
            receive(new Frame.Connect(UUID.randomUUID(), 1), sameAddress);
        }
        assertThat(sent()).isEmpty();
        assertThat(metrics.connectsRefused.labelValues("address_rate").get()).isEqualTo(101.0);
        assertThat(publisher.of(MnEvent.class)).as("no session opened for any of them").hasSize(1);

        receive(new Frame.Connect(UUID.randomUUID(), 1), MOVED);
        assertThat(sent()).singleElement().satisfies(s -> assertThat(s.frame()).isInstanceOf(Frame.ConnectAck.class));
    }

    @Test
    void aConnectBeyondWhatTheGatewayAdmitsIsAnsweredBusyAndCounted() {
        wire(GatewayConfig.forTest("gw-u", "unused:9092", Topics.DEFAULT).toBuilder().admitPerSecond(1_000)
                .admitPending(1).build());
        publisher.hold();
        receive(new Frame.Connect(node, 1), NODE);
        UUID other = UUID.randomUUID();
        receive(new Frame.Connect(other, 1), MOVED);
        assertThat(sent()).singleElement().satisfies(s -> {
            assertThat(s.frame()).isEqualTo(new Frame.Error(other, 1, ErrorCode.BUSY, 0, "gateway busy: try again later"));
            assertThat(s.to()).isEqualTo(MOVED);
        });
        assertThat(metrics.connectsRefused.labelValues("busy").get()).isEqualTo(1.0);
        assertThat(publisher.of(MnEvent.class)).as("no session opened for the refused node").hasSize(1);

        publisher.completeHeld();
        assertThat(sent()).singleElement().satisfies(s -> assertThat(s.frame()).isInstanceOf(Frame.ConnectAck.class));
        receive(new Frame.Connect(other, 1), MOVED); // it tries again after its backoff: now there is room
        publisher.completeHeld();
        assertThat(sent()).singleElement().satisfies(s -> assertThat(s.frame()).isEqualTo(
                new Frame.ConnectAck(other, 1, "gw-u", 16 * 1024)));
    }

    @Test
    void aMessageIsAcknowledgedAfterItsWriteAndTheAckFollowsTheNodeToItsNewAddress() {
        connect();
        publisher.hold();
        receive(new Frame.Data(node, 1, 1, new Body.MnMessage(UUID.randomUUID(), "echo", null, "hi".getBytes())), MOVED);
        assertThat(publisher.of(AppMessage.class)).hasSize(1);
        assertThat(sent()).isEmpty();

        publisher.completeHeld();
        assertThat(sent()).singleElement().isEqualTo(new Sent(new Frame.Ack(node, 1, 1), MOVED));
    }

    @Test
    void framesOfNoSessionAStaleConnectAndJunkGetTheirErrorsOrACounterAndNothingElse() {
        receive(new Frame.Data(node, 9, 4, new Body.MnMessage(UUID.randomUUID(), "echo", null, new byte[1])), NODE);
        assertThat(sent()).singleElement().satisfies(s -> {
            Frame.Error error = (Frame.Error) s.frame();
            assertThat(error.code()).isEqualTo(ErrorCode.UNKNOWN_SESSION);
            assertThat(error.seq()).isEqualTo(4);
        });

        receive(new Frame.Connect(node, 5), NODE);
        sent();
        receive(new Frame.Connect(node, 4), NODE);
        assertThat(sent()).singleElement()
                .satisfies(s -> assertThat(((Frame.Error) s.frame()).code()).isEqualTo(ErrorCode.STALE_EPOCH));

        channel.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), GATEWAY, NODE));
        assertThat(sent()).isEmpty();
        assertThat(metrics.malformedFrames.labelValues("TRUNCATED").get()
                + metrics.malformedFrames.labelValues("BAD_MAGIC").get()).isEqualTo(1.0);
    }

    @Test
    void aDeliveryGoesOutReliablyAndItsAcknowledgementBecomesAReceipt() {
        connect();
        core.command(new GatewayCommand.Deliver(new Unicast(UUID.randomUUID().toString(), "app", node.toString(),
                "hello".getBytes(), null, System.currentTimeMillis(), true), 1, null));
        Frame.Data data = (Frame.Data) sent().get(0).frame();
        assertThat(data.body()).isInstanceOf(Body.Delivery.class);
        assertThat(publisher.of(Receipt.class)).isEmpty();

        receive(new Frame.Ack(node, 1, data.seq()), NODE);

        assertThat(publisher.of(Receipt.class)).singleElement()
                .satisfies(r -> assertThat(r.outcome()).isEqualTo(Receipt.Outcome.DELIVERED));
    }

    @Test
    void anUnacknowledgedDeliveryIsSentAgainWhenItsTimeoutPasses() throws InterruptedException {
        connect();
        core.command(new GatewayCommand.Deliver(new Unicast(UUID.randomUUID().toString(), "app", node.toString(),
                "hello".getBytes(), null, System.currentTimeMillis(), true), 1, null));
        Frame.Data first = (Frame.Data) sent().get(0).frame();
        List<Frame> later = new ArrayList<>();

        Await.until("the delivery sent again", 10, () -> {
            channel.advanceTimeBy(UdpShard.TICK_MS, TimeUnit.MILLISECONDS);
            channel.runScheduledPendingTasks();
            sent().forEach(s -> later.add(s.frame()));
            return !later.isEmpty();
        });

        assertThat(later).singleElement().isInstanceOfSatisfying(Frame.Data.class,
                again -> assertThat(again.seq()).isEqualTo(first.seq()));
        assertThat(metrics.retransmissions.get()).isEqualTo(1.0);
        receive(new Frame.Ack(node, 1, first.seq()), NODE);
        assertThat(publisher.of(Receipt.class)).hasSize(1);
    }

    @Test
    void deliveriesQueuedBehindTheSocketsWindowLeaveOnceOtherNodesAcknowledgementsMakeRoom() {
        int nodes = 300;
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            UUID id = UUID.randomUUID();
            receive(new Frame.Connect(id, 1), new InetSocketAddress("10.0." + i / 200 + "." + (i % 200 + 1), 40000));
            ids.add(id);
        }
        assertThat(sent()).hasSize(nodes).allSatisfy(s -> assertThat(s.frame()).isInstanceOf(Frame.ConnectAck.class));
        for (UUID id : ids) {
            core.command(new GatewayCommand.Deliver(new Unicast(UUID.randomUUID().toString(), "app", id.toString(),
                    "hello".getBytes(), null, System.currentTimeMillis(), true), 1, null));
        }
        List<Frame.Data> first = sent().stream().map(s -> (Frame.Data) s.frame()).toList();
        int window = shard.window.limit();
        assertThat(first).hasSize(window);

        for (int i = 0; i < nodes - window; i++) { // each acknowledgement frees a slot its own node does not need
            Frame.Data data = first.get(i);
            receive(new Frame.Ack(data.mnId(), 1, data.seq()), new InetSocketAddress("10.0." + i / 200 + "." + (i % 200 + 1), 40000));
        }
        channel.advanceTimeBy(UdpShard.TICK_MS, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();

        assertThat(sent()).as("the deliveries that waited for room").hasSize(nodes - window)
                .allSatisfy(s -> assertThat(s.frame()).isInstanceOf(Frame.Data.class));
    }

    @Test
    void aNodeThatSaysADeliveryExpiredBeforeItArrivedSendsItBackAsExpiredWithoutAReceipt() {
        connect();
        core.command(new GatewayCommand.Deliver(new Unicast(UUID.randomUUID().toString(), "app", node.toString(),
                "hello".getBytes(), 1_000L, System.currentTimeMillis(), true), 1, System.currentTimeMillis() + 1_000));
        Frame.Data data = (Frame.Data) sent().get(0).frame();

        receive(new Frame.Error(node, 1, ErrorCode.EXPIRED, data.seq(), "expired before it arrived"), NODE);

        assertThat(publisher.of(UnsentMessage.class)).singleElement()
                .satisfies(u -> assertThat(u.reason()).isEqualTo(UnsentMessage.Reason.EXPIRED));
        assertThat(publisher.of(Receipt.class)).isEmpty();
    }

    @Test
    void handoversAndGatewayListsNameEachGatewaysUdpEndpointAndSkipGatewaysWithoutOne() {
        connect();
        GatewayEndpoints both = new GatewayEndpoints("gw-2", List.of(new Endpoint(Endpoint.MQTT, "10.0.0.2", 1883),
                new Endpoint(Endpoint.UDP, "10.0.0.2", 5501)));
        GatewayEndpoints mqttOnly = new GatewayEndpoints("gw-3", List.of(new Endpoint(Endpoint.MQTT, "10.0.0.3", 1883)));

        core.command(new GatewayCommand.Handover(node.toString(), mqttOnly, 1));
        assertThat(sent()).as("a gateway that takes no UDP node gets none").isEmpty();
        assertThat(metrics.handovers.labelValues("no-endpoint").get()).isEqualTo(1.0);

        core.command(new GatewayCommand.Handover(node.toString(), both, 2));
        assertThat(sent()).singleElement().satisfies(s -> assertThat(((Frame.Data) s.frame()).body())
                .isEqualTo(new Body.Handover(new GatewayAddress("gw-2", "10.0.0.2", 5501))));

        core.gatewayList(new GatewayList(1, 0, "uniform", List.of(
                new GatewayList.Entry("gw-3", mqttOnly.endpoints(), 2.0, 0),
                new GatewayList.Entry("gw-2", both.endpoints(), 1.0, 0))));
        channel.runPendingTasks();
        assertThat(sent()).singleElement().satisfies(s -> assertThat(((Frame.Data) s.frame()).body())
                .isEqualTo(new Body.GatewayList(List.of(new GatewayAddress("gw-2", "10.0.0.2", 5501)))));
    }

    @Test
    void aPingIsAnsweredAndADisconnectClosesTheSession() {
        connect();
        receive(new Frame.Ping(node, 1, 42), NODE);
        assertThat(sent()).singleElement().isEqualTo(new Sent(new Frame.Pong(node, 1, 42), NODE));

        receive(new Frame.Disconnect(node, 1), NODE);
        assertThat(publisher.of(MnEvent.class)).extracting(MnEvent::type)
                .containsExactly(MnEvent.Type.CONNECTED, MnEvent.Type.DISCONNECTED);
        assertThat(core.shard(0).current(node)).isNull();
        assertThat(sent()).isEmpty();
    }
}
