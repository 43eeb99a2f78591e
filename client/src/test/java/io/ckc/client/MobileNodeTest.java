package io.ckc.client;

import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.mrudp.ReliabilityConfig;
import io.ckc.testing.Await;
import io.ckc.testing.LossyLink;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client against a minimal gateway ({@link FakeGateway}): retransmission over a lossy link, the
 * congestion window of a socket, shedding what waited too long, BUSY answers, reconnects and handover.
 */
class MobileNodeTest {

    private final EventLoopGroup loops = DatagramTransport.current().newGroup(1);
    private final List<AutoCloseable> closing = new ArrayList<>();

    /** What a node reported, in order. */
    private static final class Recorder implements NodeListener {
        final AtomicInteger connected = new AtomicInteger();
        final AtomicInteger disconnected = new AtomicInteger();
        final List<MobileNode.SessionEnd> ends = new CopyOnWriteArrayList<>();
        final List<String> handovers = new CopyOnWriteArrayList<>();
        final List<UUID> messages = new CopyOnWriteArrayList<>();
        final AtomicInteger unsent = new AtomicInteger();

        @Override
        public void connected(MobileNode node) {
            connected.incrementAndGet();
        }

        @Override
        public void disconnected(MobileNode node) {
            disconnected.incrementAndGet();
            ends.add(node.lastSessionEnd());
        }

        @Override
        public void handedOver(MobileNode node, String from, String to) {
            handovers.add(from + "->" + to);
        }

        @Override
        public void newMessageReceived(MobileNode node, ReceivedMessage message) {
            messages.add(message.messageId());
        }

        @Override
        public void unsentMessages(MobileNode node, List<Body.Outgoing> list) {
            unsent.addAndGet(list.size());
        }
    }

    private FakeGateway gateway(String id) throws InterruptedException {
        FakeGateway gateway = new FakeGateway(id);
        closing.add(gateway);
        return gateway;
    }

    private ClientTransport transport(LossyLink link) throws InterruptedException {
        ClientTransport transport = link == null ? ClientTransport.open(loops) : ClientTransport.open(loops, () -> link);
        closing.add(0, transport);
        return transport;
    }

    private MobileNode connected(ClientTransport transport, FakeGateway gateway, Recorder recorder, ClientConfig config)
            throws InterruptedException {
        MobileNode node = new MobileNode(UUID.randomUUID(), transport, gateway.address(), recorder, config);
        closing.add(0, node::close);
        node.connect();
        Await.until("node connected", 10, node::isConnected);
        return node;
    }

    private static List<UUID> send(MobileNode node, int count) {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(node.send("echo", new byte[] {(byte) i}, null));
        }
        return ids;
    }

    private static <T> T onLoop(ClientTransport transport, java.util.concurrent.Callable<T> action) throws Exception {
        return transport.eventLoop().submit(action).get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void messagesBothWaysArriveOnceAndInOrderOverALinkThatDropsAndReordersAFifth() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        AtomicLong dropped = new AtomicLong();
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(new LossyLink(7, 0.2, 0.2, dropped)), gateway, recorder,
                ClientConfig.DEFAULT.withReliability(new ReliabilityConfig(50, 1_000, 12, 64, 256, 0.25)));

        List<UUID> sent = send(node, 300);
        List<UUID> delivered = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            UUID id = UUID.randomUUID();
            delivered.add(id);
            gateway.deliver(node.id(), id, new byte[] {1});
        }

        Await.until("all 300 messages at the gateway", 60, () -> call(() -> gateway.receivedFrom(node.id()).size() == 300));
        Await.until("all 100 deliveries at the node", 60, () -> recorder.messages.size() == 100);
        assertThat(gateway.receivedFrom(node.id())).as("once each, in send order").containsExactlyElementsOf(sent);
        assertThat(recorder.messages).as("once each, in delivery order").containsExactlyElementsOf(delivered);
        assertThat(dropped.get()).as("the link did drop datagrams").isGreaterThan(50);
        assertThat(recorder.unsent.get()).isZero();
        assertThat(recorder.disconnected.get()).isZero();
    }

    @Test
    void theNodesOfOneSocketTogetherKeepWithinItsCongestionWindowAndAStallHalvesEachOnesShare() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        ClientTransport transport = transport(null);
        int limit = onLoop(transport, () -> transport.window().limit());
        int sessionWindow = ClientConfig.DEFAULT.reliability().sendWindow();
        List<MobileNode> nodes = new ArrayList<>();
        for (int i = 0; i < limit / sessionWindow + 2; i++) { // more than the window's worth of session windows
            nodes.add(connected(transport, gateway, new Recorder(), ClientConfig.DEFAULT));
        }
        gateway.holdAcks(true);
        List<List<UUID>> sent = new ArrayList<>();
        for (MobileNode node : nodes) {
            sent.add(send(node, 100)); // each session alone may have its send window in flight
        }
        Await.until("the window's worth in flight", 10, () -> call(() -> gateway.mostUnacknowledged() >= limit));
        Await.until("every node's retransmission timeout halved its share of the window", 10,
                () -> call(() -> onLoop(transport, () -> transport.window().reductions() >= nodes.size())));
        // each of the N shares halved once: the limit times (1 - 1/2N)^N, about 0.6 of it
        double afterOneTimeoutEach = limit * Math.pow(1 - 1.0 / (2 * nodes.size()), nodes.size());
        assertThat(onLoop(transport, () -> transport.window().limit())).isLessThanOrEqualTo((int) Math.ceil(afterOneTimeoutEach));
        assertThat(gateway.mostUnacknowledged()).as(nodes.size() + " nodes, 100 messages each, one socket").isEqualTo(limit);

        gateway.holdAcks(false);
        for (int i = 0; i < nodes.size(); i++) {
            UUID node = nodes.get(i).id();
            List<UUID> expected = sent.get(i);
            Await.until("all 100 of node " + i, 30, () -> call(() -> gateway.receivedFrom(node).size() == 100));
            assertThat(gateway.receivedFrom(node)).containsExactlyElementsOf(expected);
        }
        Await.until("every slot given back", 10, () -> call(() -> onLoop(transport, () -> transport.window().inFlight() == 0)));
    }

    @Test
    void aNodeWithAFrameInFlightIsTickedWhenItsRetransmissionIsDueNotEveryTick() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        ClientTransport transport = transport(null);
        // a first retransmission timeout of 1 s: nothing is due for a while after a send
        MobileNode node = connected(transport, gateway, new Recorder(),
                ClientConfig.DEFAULT.withReliability(new ReliabilityConfig(1_000, 2_000, 12, 64, 256, 0)));
        gateway.holdAcks(true);
        send(node, 1);
        long gap = onLoop(transport, () -> node.nextTickMs(MobileNode.nowMs()) - MobileNode.nowMs());
        assertThat(gap).as("its liveness probe and outbox are looked at this often at least")
                .isBetween(ClientTransport.MAX_TICK_GAP_MS - 5, ClientTransport.MAX_TICK_GAP_MS);
        int window = 64; // its send window, as configured above
        send(node, window + 10); // more than its send window: some wait for room, looked at every tick
        assertThat(onLoop(transport, () -> node.nextTickMs(MobileNode.nowMs()) - MobileNode.nowMs()))
                .isLessThanOrEqualTo(ClientTransport.TICK_MS);
        gateway.holdAcks(false);
        Await.until("all delivered", 10, () -> call(() -> gateway.receivedFrom(node.id()).size() == window + 11));
    }

    @Test
    void aSocketTicksOnlyWhileOneOfItsNodesHasSomethingDue() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        ClientTransport transport = transport(null);
        MobileNode node = connected(transport, gateway, new Recorder(), ClientConfig.DEFAULT);
        long sweeps = transport.sweeps();
        Await.until("two sweeps after the connect", 10, () -> transport.sweeps() >= sweeps + 2);
        long ticks = transport.ticks();
        Await.until("three sweeps more", 10, () -> transport.sweeps() >= sweeps + 5);
        assertThat(transport.ticks()).as("ticks while its one node is connected with nothing in flight").isEqualTo(ticks);
        send(node, 1);
        Await.until("the message arrived", 10, () -> call(() -> gateway.receivedFrom(node.id()).size() == 1));
        Await.until("a tick for the frame in flight", 10, () -> transport.ticks() > ticks);
    }

    @Test
    void messagesThatWaitTooLongForRoomInTheWindowGoBackToTheApplicationAsUnsent() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        ClientTransport transport = transport(null);
        MobileNode node = connected(transport, gateway, recorder, ClientConfig.DEFAULT.withMaxQueueDelay(200));
        int limit = Math.min(onLoop(transport, () -> transport.window().limit()),
                ClientConfig.DEFAULT.reliability().sendWindow());
        gateway.holdAcks(true);
        send(node, 200);
        Await.until("the messages beyond the window shed", 10, () -> recorder.unsent.get() >= 200 - limit);
        assertThat(recorder.unsent.get()).as("all that never left: 200 less what the windows let go").isEqualTo(200 - limit);
        gateway.holdAcks(false);
        Await.until("the window's messages delivered", 10, () -> call(() -> gateway.receivedFrom(node.id()).size() == limit));
        assertThat(node.isConnected()).isTrue();
    }

    @Test
    void byDefaultMessagesWaitForRoomInTheWindowUntilTheOutboxTtlNotLess() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        ClientTransport transport = transport(null);
        long ttlMs = 6_000; // above the 5 s that shed them before: a broker restart outlasted it
        MobileNode node = connected(transport, gateway, recorder, ClientConfig.DEFAULT.withOutbox(10_000, ttlMs));
        int limit = Math.min(onLoop(transport, () -> transport.window().limit()),
                ClientConfig.DEFAULT.reliability().sendWindow());
        gateway.holdAcks(true);
        long sentAt = System.nanoTime();
        send(node, 200);
        Await.until("the messages beyond the window handed back at the TTL", 20,
                () -> recorder.unsent.get() >= 200 - limit);
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
        assertThat(waitedMs).as("not handed back before their TTL").isGreaterThanOrEqualTo(ttlMs - 100);
        assertThat(recorder.unsent.get()).isEqualTo(200 - limit);
        assertThat(node.isConnected()).isTrue();
    }

    @Test
    void aSocketCountsWhatItsNodesHoldSentUnacknowledgedWaitingForRoomOrWaitingForAGateway() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        ClientTransport transport = transport(null);
        MobileNode node = connected(transport, gateway, new Recorder(), ClientConfig.DEFAULT);
        int limit = Math.min(onLoop(transport, () -> transport.window().limit()),
                ClientConfig.DEFAULT.reliability().sendWindow());
        gateway.holdAcks(true);
        send(node, 200);
        Await.until("a window's worth sent, the rest waiting for room", 10,
                () -> call(() -> java.util.Arrays.equals(transport.heldMessages(), new long[] {0, 200 - limit, limit})));
        node.disconnect(); // what the gateway did not acknowledge waits in the outbox for the next session
        Await.until("all of it waiting for a gateway", 10,
                () -> call(() -> java.util.Arrays.equals(transport.heldMessages(), new long[] {200, 0, 0})));
    }

    @Test
    void messagesRefusedAsBusyGoAgainAndNoneIsHandedBack() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), gateway, recorder, ClientConfig.DEFAULT);
        gateway.refuseMessagesAsBusy(2);
        List<UUID> sent = send(node, 3);
        Await.until("all three taken, the refused two sent again", 10,
                () -> call(() -> Set.copyOf(gateway.receivedFrom(node.id())).containsAll(sent)));
        assertThat(gateway.refusalsLeft()).isZero();
        assertThat(recorder.unsent.get()).isZero();
        assertThat(node.isConnected()).isTrue();
    }

    @Test
    void aNodeThatShedsLateMessagesGetsThoseRefusedAsBusyBackAndDoesNotSendThemAgain() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), gateway, recorder, ClientConfig.DEFAULT.withMaxQueueDelay(5_000));
        gateway.refuseMessagesAsBusy(2);
        send(node, 3);
        Await.until("two refused, one taken", 10,
                () -> recorder.unsent.get() == 2 && call(() -> gateway.receivedFrom(node.id()).size() == 1));
        assertThat(node.isConnected()).isTrue();
        send(node, 1);
        Await.until("the next one taken", 10, () -> call(() -> gateway.receivedFrom(node.id()).size() == 2));
        assertThat(recorder.unsent.get()).as("the refused two were not sent again and taken").isEqualTo(2);
    }

    @Test
    void messagesTheGatewayCouldNotWriteToTheCoreGoAgainLaterWithWhatWasSentMeanwhileNoneHandedBack() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        ClientTransport transport = transport(null);
        // They go again after the reconnect delay, 3 s: the later ones are most likely sent while they wait. Either
        // way the later ones must reach the gateway after them (why no check of the wait itself: a machine that
        // stalls 3 s made that check fail).
        MobileNode node = connected(transport, gateway, recorder, ClientConfig.DEFAULT.withReconnectDelay(3_000));
        gateway.refuseMessages(2, ErrorCode.PUBLISH_FAILED);
        List<UUID> first = send(node, 2);
        Await.until("both refused", 10, () -> call(() -> gateway.refusalsLeft() == 0));
        List<UUID> later = send(node, 3);
        Await.until("all five in", 20, () -> call(() -> gateway.receivedFrom(node.id()).size() == 5));
        List<UUID> all = new ArrayList<>(first);
        all.addAll(later);
        assertThat(gateway.receivedFrom(node.id())).as("the refused first, then what waited behind them")
                .containsExactlyElementsOf(all);
        assertThat(recorder.unsent.get()).isZero();
    }

    @Test
    void whileTheCoreRefusesANodeSendsTheFirstRefusedMessageAloneAndTheRestInOrderOnceItIsTaken() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), gateway, recorder, ClientConfig.DEFAULT.withReconnectDelay(200));
        gateway.refuseMessages(4, ErrorCode.PUBLISH_FAILED); // all three, then the first of them once more
        List<UUID> sent = send(node, 3);
        Await.until("all three in", 20, () -> call(() -> gateway.receivedFrom(node.id()).size() == 3));
        assertThat(gateway.receivedFrom(node.id())).containsExactlyElementsOf(sent);
        assertThat(gateway.dataFrames.get()).as("3, the first alone twice, then the other two").isEqualTo(7);
        assertThat(recorder.unsent.get()).isZero();
    }

    /**
     * A refused message goes again alone, and what the application sends meanwhile waits behind it. When that one is
     * shed instead (it waited too long for room in its socket's window), the others must go on: once they waited for
     * its answer forever, and after an overload (2026-11-28) two thirds of the simulator's nodes kept every message
     * they were given in the outbox, connected and sending nothing.
     */
    @Test
    void theMessagesWaitingBehindARefusedOneGoOnWhenItIsShedWaitingForRoomInTheWindow() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        ClientTransport transport = transport(null);
        Recorder shedding = new Recorder();
        MobileNode node = connected(transport, gateway, shedding,
                ClientConfig.DEFAULT.withReconnectDelay(1_000).withMaxQueueDelay(1_000));
        MobileNode other = connected(transport, gateway, new Recorder(), ClientConfig.DEFAULT.withReliability(
                new ReliabilityConfig(500, 4_000, 8, 1_024, 256)));
        gateway.refuseMessages(1, ErrorCode.PUBLISH_FAILED);
        node.send("echo", new byte[] {1}, null);
        Await.until("refused", 10, () -> call(() -> gateway.refusalsLeft() == 0));
        gateway.holdAcks(true);
        int fill = onLoop(transport, () -> transport.window().limit()) + 10;
        send(other, fill); // the socket's window full: the refused message, sent again alone, waits for room
        Await.until("the refused message handed back after waiting for room", 10, () -> shedding.unsent.get() == 1);
        gateway.holdAcks(false);
        Await.until("the other node's messages taken", 30,
                () -> call(() -> gateway.receivedFrom(other.id()).size() == fill));

        UUID next = node.send("echo", new byte[] {2}, null);
        Await.until("the message sent after it taken", 10,
                () -> call(() -> gateway.receivedFrom(node.id()).contains(next)));
        assertThat(shedding.unsent.get()).isEqualTo(1);
    }

    @Test
    void aNodeThatDisconnectsKeepsWhatItsGatewayDidNotAcknowledgeForItsNextSessionAndCloseHandsBackWhatIsLeft()
            throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), gateway, recorder, ClientConfig.DEFAULT);
        gateway.holdAcks(true); // Kafka slow: the gateway has them, not yet acknowledged
        List<UUID> sent = send(node, 2);
        Await.until("both at the gateway", 10, () -> call(() -> gateway.receivedFrom(node.id()).size() == 2));
        node.disconnect();
        // the gateway must see the node leave before it acknowledges: acknowledgements that overtake the
        // node's leaving are rightly taken, and then nothing is left to send again
        Await.until("the gateway saw the node leave", 10, () -> call(() -> !gateway.hasSession(node.id())));
        UUID meanwhile = node.send("echo", new byte[] {9}, null);
        gateway.holdAcks(false);
        node.connect();
        Await.until("all three on the next session", 10, () -> call(() -> gateway.receivedFrom(node.id()).size() == 5));
        assertThat(gateway.receivedFrom(node.id()).subList(2, 5)).containsExactly(sent.get(0), sent.get(1), meanwhile);
        assertThat(recorder.unsent.get()).isZero();

        node.disconnect();
        node.send("echo", new byte[] {10}, null);
        node.close();
        Await.until("the one left handed back", 10, () -> recorder.unsent.get() == 1);
    }

    @Test
    void aBusyGatewayIsAskedAgainLaterAndNotGivenUpForTheNextOfTheList() throws Exception {
        FakeGateway a = gateway("gw-a");
        FakeGateway b = gateway("gw-b");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), a, recorder, ClientConfig.DEFAULT.withLiveness(15_000, 20_000, 2));
        a.gatewayList(node.id(), List.of(a.gatewayAddress(), b.gatewayAddress()));
        Await.until("the gateway list", 10, () -> node.gatewayList().size() == 2);

        a.forgetSessions(); // a restart: the node's next message finds no session, and it connects again
        a.answerBusy(4);
        send(node, 1);
        Await.until("connected again", 30, () -> recorder.connected.get() == 2);
        assertThat(a.busySent.get()).isEqualTo(4);
        assertThat(node.gatewayId()).as("four BUSY answers, two attempts allowed: still gw-a").isEqualTo("gw-a");
        assertThat(b.connects.get()).isZero();
    }

    @Test
    void aNodeWhoseGatewayForgotItConnectsAgainAndResendsWhatWasNotAcknowledged() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), gateway, recorder, ClientConfig.DEFAULT);
        List<UUID> sent = new ArrayList<>(send(node, 10));
        Await.until("first ten in", 10, () -> call(() -> gateway.receivedFrom(node.id()).size() == 10));

        gateway.forgetSessions();
        sent.addAll(send(node, 10));
        Await.until("all twenty in", 30, () -> call(() -> gateway.receivedFrom(node.id()).containsAll(sent)));
        assertThat(gateway.connects.get()).isEqualTo(2);
        assertThat(recorder.connected.get()).isEqualTo(2);
        assertThat(recorder.ends).containsExactly(MobileNode.SessionEnd.ENDED_BY_GATEWAY);
        assertThat(recorder.unsent.get()).isZero();
    }

    @Test
    void aNodeWhoseGatewayRestartedConnectsThereAgainAtOnceNotAfterTheReconnectDelay() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        // a reconnect delay far longer than the wait below: only a prompt reconnect passes
        MobileNode node = connected(transport(null), gateway, recorder, ClientConfig.DEFAULT.withReconnectDelay(60_000));
        gateway.forgetSessions(); // it restarted: the node's next message finds no session
        List<UUID> sent = send(node, 1);
        Await.until("connected again at once", 10, () -> recorder.connected.get() == 2);
        Await.until("the message in", 10, () -> call(() -> gateway.receivedFrom(node.id()).containsAll(sent)));
        assertThat(recorder.ends).containsExactly(MobileNode.SessionEnd.ENDED_BY_GATEWAY);
    }

    @Test
    void aNodeWhoseLinkDropsOpensANewSessionAtOnceAndSendsWhatWasNotAcknowledgedThere() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), gateway, recorder, ClientConfig.DEFAULT);
        gateway.holdAcks(true);
        List<UUID> sent = new ArrayList<>(send(node, 5));
        Await.until("five in, none acknowledged", 10, () -> call(() -> gateway.receivedFrom(node.id()).size() == 5));

        node.linkLost();
        gateway.holdAcks(false);
        sent.addAll(send(node, 5));
        Await.until("a second session", 10, () -> gateway.connects.get() == 2 && node.isConnected());
        Await.until("all ten in on it", 30, () -> call(() -> gateway.receivedFrom(node.id()).containsAll(sent)));
        assertThat(recorder.ends).containsExactly(MobileNode.SessionEnd.LINK_LOST);
        assertThat(node.gatewayId()).as("the same gateway").isEqualTo("gw-a");
        assertThat(recorder.unsent.get()).as("nothing handed back").isZero();
    }

    @Test
    void aDeliveryThatComesAgainIsDroppedAndCounted() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), gateway, recorder, ClientConfig.DEFAULT);
        UUID id = UUID.randomUUID();
        gateway.deliver(node.id(), id, new byte[] {1});
        gateway.deliver(node.id(), id, new byte[] {1});
        gateway.deliver(node.id(), UUID.randomUUID(), new byte[] {2});
        Await.until("three deliveries seen", 10, () -> recorder.messages.size() + node.duplicatesDropped() == 3);
        assertThat(recorder.messages).hasSize(2).startsWith(id);
        assertThat(node.duplicatesDropped()).isEqualTo(1);
    }

    @Test
    void aDeliveryPastItsDeadlineIsRefusedAsExpiredUnlessTheNodeHadItAndNeverReachesTheApplication() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), gateway, recorder, ClientConfig.DEFAULT);
        UUID had = UUID.randomUUID();
        UUID never = UUID.randomUUID();
        gateway.deliver(node.id(), had, new byte[] {1});
        gateway.deliverExpired(node.id(), had); // as after a gateway failover: the new session's copy expired
        gateway.deliverExpired(node.id(), never);
        Await.until("three answers", 10, () -> gateway.deliveryAnswers.size() == 3);
        assertThat(gateway.deliveryAnswers).containsExactly(had + " acknowledged", had + " acknowledged",
                never + " EXPIRED");
        assertThat(recorder.messages).containsExactly(had);
    }

    @Test
    void contentWhoseDeadlinePassedBeforeItCouldBeHandedUpIsRefusedAsExpired() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), gateway, recorder, ClientConfig.DEFAULT);
        UUID inTime = UUID.randomUUID();
        UUID late = UUID.randomUUID();
        UUID timeless = UUID.randomUUID();
        long now = System.currentTimeMillis();
        gateway.deliver(node.id(), inTime, new byte[] {1}, now + 60_000);
        // What a node finds when a delivery waited behind a lost frame past its deadline: no time left.
        gateway.deliver(node.id(), late, new byte[] {2}, now - 1_000);
        gateway.deliver(node.id(), timeless, new byte[] {3});
        Await.until("three answers", 10, () -> gateway.deliveryAnswers.size() == 3);
        assertThat(gateway.deliveryAnswers).containsExactly(inTime + " acknowledged", late + " EXPIRED",
                timeless + " acknowledged");
        assertThat(recorder.messages).containsExactly(inTime, timeless);
    }

    @Test
    void aNodeWhoseMessagesDrawNoAnswerProbesTheGatewayAndKeepsItsSessionWhileThePongsComeBack() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        // Retries that outlast the test: only the silence timeout (900 ms) could end the session.
        ClientConfig config = ClientConfig.DEFAULT.withLiveness(300, 900, 3)
                .withReliability(new ReliabilityConfig(200, 400, 1_000, 64, 256));
        ClientTransport transport = transport(null);
        MobileNode node = connected(transport, gateway, recorder, config);
        gateway.holdAcks(true); // as under overload: the node's messages draw no answer, its pings do

        var sending = transport.eventLoop().scheduleAtFixedRate(() -> send(node, 1), 0, 50, TimeUnit.MILLISECONDS);
        try {
            Await.until("ten probes answered, three silence timeouts' worth", 30, () -> gateway.pings.get() >= 10);
        } finally {
            sending.cancel(false);
        }
        assertThat(recorder.ends).isEmpty();
        assertThat(node.isConnected()).isTrue();
    }

    @Test
    void aGatewayThatStopsAcknowledgingEndsTheSessionWhenRetriesRunOutAndTheNodeSaysSo() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        Recorder recorder = new Recorder();
        ClientConfig config = ClientConfig.DEFAULT.withReliability(new ReliabilityConfig(50, 100, 3, 64, 256));
        MobileNode node = connected(transport(null), gateway, recorder, config);
        gateway.holdAcks(true); // it still answers pings: the node hears it, but none of its frames gets through

        send(node, 1);
        Await.until("the session given up", 10, () -> !recorder.ends.isEmpty());
        assertThat(recorder.ends.get(0)).isEqualTo(MobileNode.SessionEnd.RETRIES_EXHAUSTED);
    }

    @Test
    void nodesClosedRightBeforeTheirSocketStillTellTheGatewayTheyLeft() throws Exception {
        FakeGateway gateway = gateway("gw-a");
        ClientTransport transport = transport(null);
        List<MobileNode> nodes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            nodes.add(connected(transport, gateway, new Recorder(), ClientConfig.DEFAULT));
        }
        // The loop busy, as a fleet's loop is at its end: the nodes' closes and the socket's close queue up behind.
        var loop = (SingleThreadEventExecutor) transport.eventLoop();
        CountDownLatch busy = new CountDownLatch(1);
        loop.execute(() -> {
            try {
                busy.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        nodes.forEach(MobileNode::close); // each queues its Disconnect on the socket's loop
        int queued = loop.pendingTasks();
        Thread closer = new Thread(() -> {
            try {
                transport.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        closer.start();
        Await.until("the socket's close queued behind the nodes'", 10, () -> loop.pendingTasks() > queued);
        busy.countDown();

        closer.join(10_000);
        for (MobileNode node : nodes) {
            Await.until("the gateway heard " + node.id() + " leave", 10, () -> call(() -> !gateway.hasSession(node.id())));
        }
    }

    @Test
    void aSilentGatewayIsLeftForTheNextGatewayOfTheList() throws Exception {
        FakeGateway a = gateway("gw-a");
        FakeGateway b = gateway("gw-b");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), a, recorder, ClientConfig.DEFAULT.withLiveness(200, 600, 3));
        a.gatewayList(node.id(), List.of(a.gatewayAddress(), b.gatewayAddress()));
        Await.until("the gateway list", 10, () -> node.gatewayList().size() == 2);

        a.close(); // gone without a word
        Await.until("connected to gw-b", 30, () -> "gw-b".equals(node.gatewayId()));
        assertThat(recorder.disconnected.get()).isEqualTo(1);
        assertThat(recorder.ends).containsExactly(MobileNode.SessionEnd.GATEWAY_SILENT);
        assertThat(b.connects.get()).isEqualTo(1);
    }

    @Test
    void aHandoverMovesTheNodeAndEveryMessageSentAroundItArrivesInOrder() throws Exception {
        FakeGateway a = gateway("gw-a");
        FakeGateway b = gateway("gw-b");
        Recorder recorder = new Recorder();
        MobileNode node = connected(transport(null), a, recorder, ClientConfig.DEFAULT);
        List<UUID> sent = new ArrayList<>(send(node, 50));
        a.handover(node.id(), b.gatewayAddress());
        sent.addAll(send(node, 50)); // sent while the node drains and moves
        Await.until("on gw-b", 10, () -> "gw-b".equals(node.gatewayId()));
        sent.addAll(send(node, 50));

        Await.until("all 150 arrived at one gateway or the other", 30, () -> call(() -> {
            List<UUID> all = new ArrayList<>(a.receivedFrom(node.id()));
            all.addAll(b.receivedFrom(node.id()));
            return all.containsAll(sent);
        }));
        List<UUID> both = new ArrayList<>(a.receivedFrom(node.id()));
        both.addAll(b.receivedFrom(node.id()));
        assertThat(both).as("the old gateway's part, then the new one's: in send order, nothing twice")
                .containsExactlyElementsOf(sent);
        assertThat(recorder.handovers).containsExactly("gw-a->gw-b");
        assertThat(recorder.disconnected.get()).isZero();
        assertThat(a.hasSession(node.id())).as("the node said goodbye to gw-a").isFalse();
    }

    /** An await condition that may throw (the gateway's state is read on its loop). */
    private static boolean call(java.util.concurrent.Callable<Boolean> condition) {
        try {
            return condition.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
