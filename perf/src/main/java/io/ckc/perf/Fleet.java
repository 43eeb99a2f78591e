package io.ckc.perf;

import io.ckc.client.ClientConfig;
import io.ckc.client.ClientTransport;
import io.ckc.client.MobileNode;
import io.ckc.client.NodeListener;
import io.ckc.client.ReceivedMessage;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.EventLoopGroup;
import org.HdrHistogram.Histogram;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;

/**
 * A simulated fleet of mobile nodes multiplexed over a few sockets and threads. By default each
 * node sends {@code messages} messages to the echo channel at {@code ratePerMinute} and measures
 * the round-trip time of each echo; a scenario may give its own listener instead (outbound runs).
 * Nodes are spread round-robin over the gateways given; handovers from the core move them on.
 */
final class Fleet implements AutoCloseable {

    /** Nodes per shared UDP socket. */
    static final int NODES_PER_TRANSPORT = 2_000;
    /**
     * Nodes per shared UDP socket where they authenticate: the DTLS handshakes of one socket's nodes with one gateway
     * run one after another (the gateway's handshake messages carry no connection ID to tell them apart), so a fleet
     * of devices that each have a socket of their own is simulated by more sockets, not by handshakes in a queue.
     * Ten, not fifty: the nodes of a killed gateway all shake hands with the others at once, and fifty a socket queued
     * up to eight of them behind one another per socket and gateway (on a fast day it cost nothing that showed:
     * perf/results/2026-12-02-1500-ab).
     */
    static final int AUTHENTICATED_NODES_PER_TRANSPORT = 10;
    /**
     * Sockets of an authenticated fleet at most, so more nodes share one past 10,000: a million nodes at 10 a socket
     * would be 100,000 sockets (the process's open files are limited to 20,000 here), each with its timers.
     */
    static final int MAX_AUTHENTICATED_TRANSPORTS = 1_000;
    /** Connections asked for and not yet open, at most: the gateway's DTLS handshakes from one address. */
    static final int CONNECTING_AT_MOST = 64;
    /** How long a connection not yet open holds its place among {@link #CONNECTING_AT_MOST}. */
    static final int CONNECT_WAIT_SECONDS = 10;

    private final EventLoopGroup loops;
    private final List<ClientTransport> transports = new ArrayList<>();
    private final List<MobileNode> nodes = new ArrayList<>();
    private final AtomicIntegerArray handoversPerNode;
    /** Per node, when its last session ended and when its last one opened ({@link System#nanoTime()}). */
    private final AtomicLongArray sessionLostAtNanos;
    private final AtomicLongArray sessionOpenedAtNanos;
    /** The echoes of this fleet's messages; {@link #sent}, {@link #delivered}, {@link #duplicates} are its counters. */
    final RoundTrips trips;
    final AtomicInteger connected = new AtomicInteger();
    final AtomicLong sent;
    final AtomicLong delivered;
    final AtomicLong duplicates;
    final AtomicLong unsent = new AtomicLong();
    /** Sessions that ended, for any reason (a handover is not one). */
    final AtomicLong disconnects = new AtomicLong();
    /** {@link #disconnects} by {@link MobileNode.SessionEnd}, indexed by its ordinal. */
    private final AtomicLongArray disconnectsByCause = new AtomicLongArray(MobileNode.SessionEnd.values().length);
    final AtomicLong errors = new AtomicLong();
    final AtomicLong handovers = new AtomicLong();
    /** The channel the echo requests go to: the echo application's, or one whose application answers alike. */
    private String channel = StackOptions.ECHO_CHANNEL;

    Fleet(int nodeCount, List<InetSocketAddress> gateways, int ioThreads) throws InterruptedException {
        this(nodeCount, gateways, ioThreads, fleet -> fleet.new Listener());
    }

    /**
     * The nodes' settings of an open-loop load that goes past saturation (perf stepped and overload): a message that
     * waited {@value #SHED_AFTER_MS} ms for room in its socket's window is handed back (counted as shed), so the
     * queues, and every later message's latency, stay bounded; every other scenario keeps the SDK's default.
     */
    static final long SHED_AFTER_MS = 5_000;
    static final ClientConfig SHEDDING = ClientConfig.DEFAULT.withMaxQueueDelay(SHED_AFTER_MS);

    /** A fleet whose nodes report to the listener {@code listenerOf} makes for it. */
    Fleet(int nodeCount, List<InetSocketAddress> gateways, int ioThreads,
          java.util.function.Function<Fleet, NodeListener> listenerOf) throws InterruptedException {
        this(nodeCount, gateways, ioThreads, listenerOf, ClientConfig.DEFAULT);
    }

    Fleet(int nodeCount, List<InetSocketAddress> gateways, int ioThreads,
          java.util.function.Function<Fleet, NodeListener> listenerOf, ClientConfig config) throws InterruptedException {
        this(nodeCount, gateways, ioThreads, listenerOf, config, new RoundTrips(nodeCount));
    }

    /** A fleet whose round trips go to {@code trips}, shared with MQTT devices numbered after these nodes. */
    Fleet(int nodeCount, List<InetSocketAddress> gateways, int ioThreads,
          java.util.function.Function<Fleet, NodeListener> listenerOf, ClientConfig config, RoundTrips trips)
            throws InterruptedException {
        loops = DatagramTransport.current().newGroup(ioThreads);
        this.trips = trips;
        sent = trips.sent;
        delivered = trips.delivered;
        duplicates = trips.duplicates;
        handoversPerNode = new AtomicIntegerArray(nodeCount);
        sessionLostAtNanos = new AtomicLongArray(nodeCount);
        sessionOpenedAtNanos = new AtomicLongArray(nodeCount);
        for (int i = 0; i < nodeCount; i++) {
            sessionLostAtNanos.set(i, Long.MIN_VALUE);
            sessionOpenedAtNanos.set(i, Long.MIN_VALUE);
        }
        int perTransport = FleetCredentials.current() == null ? NODES_PER_TRANSPORT
                : Math.max(AUTHENTICATED_NODES_PER_TRANSPORT, (nodeCount + MAX_AUTHENTICATED_TRANSPORTS - 1)
                        / MAX_AUTHENTICATED_TRANSPORTS);
        int transportCount = Math.max(2, (nodeCount + perTransport - 1) / perTransport);
        for (int i = 0; i < transportCount; i++) {
            transports.add(ClientTransport.open(loops, FleetCredentials.current(), null));
        }
        NodeListener listener = listenerOf.apply(this);
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(new MobileNode(new UUID(idHigh, i), transports.get(i % transportCount),
                    gateways.get(i % gateways.size()), listener, config));
        }
    }

    /** When node {@code i}'s last session ended and when its last one opened, as {@link LoadPath#sessionLostAndOpenedNanos}. */
    long[] sessionLostAndOpenedNanos(int i) {
        return new long[] {sessionLostAtNanos.get(i), sessionOpenedAtNanos.get(i)};
    }

    /** The echo load's fleet on the stack's gateways, every node connected (up to 3 minutes' wait), sending to its channel. */
    static Fleet connected(int nodeCount, StackOptions stack, java.io.PrintStream out) throws InterruptedException {
        return connected(nodeCount, stack, ClientConfig.DEFAULT, out);
    }

    /** The same with the nodes' settings given. */
    static Fleet connected(int nodeCount, StackOptions stack, ClientConfig config, java.io.PrintStream out)
            throws InterruptedException {
        List<InetSocketAddress> addresses = stack.gatewayAddresses();
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("the ckc path needs --gateways");
        }
        Fleet fleet = new Fleet(nodeCount, addresses, stack.ioThreads, f -> f.new Listener(), config)
                .channel(stack.channel);
        fleet.connectAll(1000);
        waitFor(() -> fleet.connected.get() >= nodeCount, 180, () -> { });
        out.printf("%d of %d nodes connected%n", fleet.connected.get(), nodeCount);
        if (fleet.connected.get() < nodeCount) {
            out.println("  not connected: " + fleet.notConnected(10));
        }
        return fleet;
    }

    /**
     * Node ids carry their index in the low bits, so callbacks find a node's counters without a map, and
     * the fleet's own random high bits, so two fleets of one run (perf rescale's load and its roaming
     * MTD nodes) never share a node id.
     */
    private final long idHigh = UUID.randomUUID().getMostSignificantBits();

    static int indexOf(MobileNode node) {
        return (int) node.id().getLeastSignificantBits();
    }

    /** The nodes with a session on gateway {@code gatewayId} now, as {@link LoadPath#nodesOn}. */
    int[] nodesOn(String gatewayId) {
        return java.util.stream.IntStream.range(0, nodes.size())
                .filter(i -> nodes.get(i).isConnected() && gatewayId.equals(nodes.get(i).gatewayId())).toArray();
    }

    /** Connected nodes per gateway id, as the nodes themselves see it. */
    Map<String, Integer> countsByGateway() {
        Map<String, Integer> counts = new TreeMap<>();
        for (MobileNode node : nodes) {
            String gateway = node.gatewayId();
            if (gateway != null && node.isConnected()) {
                counts.merge(gateway, 1, Integer::sum);
            }
        }
        return counts;
    }

    /**
     * Up to {@code most} of the nodes without a session, each as its index, its socket, its state, the gateway it
     * tries and why its last session ended, such as {@code 17@s7 CONNECTING 127.0.0.1:5501 connect_failed}.
     */
    String notConnected(int most) {
        StringJoiner listed = new StringJoiner(", ");
        int count = 0;
        for (int i = 0; i < nodes.size(); i++) {
            MobileNode node = nodes.get(i);
            if (node.isConnected()) {
                continue;
            }
            if (count++ < most) {
                MobileNode.SessionEnd end = node.lastSessionEnd();
                listed.add(i + "@s" + (i % transports.size()) + " " + node.state() + " "
                        + node.gatewayAddress().getAddress().getHostAddress() + ":" + node.gatewayAddress().getPort()
                        + " " + (end == null ? "never_connected" : end.name().toLowerCase(Locale.ROOT)));
            }
        }
        return count + (count > most ? " (first " + most + ": " : " (") + listed + ")";
    }

    /** The sessions ended so far by cause, such as {@code retries_exhausted=3 gateway_silent=0 ...}. */
    String disconnectsByCause() {
        StringJoiner causes = new StringJoiner(" ");
        for (MobileNode.SessionEnd cause : MobileNode.SessionEnd.values()) {
            causes.add(cause.name().toLowerCase(Locale.ROOT) + "=" + disconnectsByCause.get(cause.ordinal()));
        }
        return causes.toString();
    }

    /** Deliveries the nodes dropped as repeats of one they had (their SDK's dedupe by message id). */
    long duplicatesDroppedByNodes() {
        return nodes.stream().mapToLong(MobileNode::duplicatesDropped).sum();
    }

    int maxHandoversOfANode() {
        int max = 0;
        for (int i = 0; i < handoversPerNode.length(); i++) {
            max = Math.max(max, handoversPerNode.get(i));
        }
        return max;
    }

    /** Waits for the echoes still on their way until all are in or none came for {@code quietSeconds}. */
    void awaitEchoes(int quietSeconds, Runnable progress) throws InterruptedException {
        trips.awaitEchoes(quietSeconds, progress);
    }

    /**
     * Waits for the echoes except those of messages the SDK handed back unsent (refused as BUSY, or
     * never acknowledged): for a warm-up, where waiting out the quiet time for echoes that will not
     * come only makes it longer. Not for a measured run: a message never acknowledged may still have
     * reached the gateway, and its late echo belongs in the count.
     */
    void awaitEchoesExceptHandedBack(int quietSeconds) throws InterruptedException {
        trips.awaitEchoes(quietSeconds, unsent::get, () -> { });
    }

    /**
     * Waits until {@code done}, or until {@code count} (what arrived so far) stood still for
     * {@code quietSeconds}: the wait for the last echoes, replies or deliveries of a run.
     */
    static void waitUntilDoneOrQuiet(BooleanSupplier done, java.util.function.LongSupplier count, int quietSeconds,
                                     Runnable progress) throws InterruptedException {
        long last = -1;
        long quietSince = System.nanoTime();
        while (!done.getAsBoolean()) {
            Thread.sleep(200);
            progress.run();
            long now = count.getAsLong();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(quietSeconds)) {
                break;
            }
        }
        progress.run();
    }

    static void waitFor(BooleanSupplier done, int seconds, Runnable progress) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(250);
            progress.run();
        }
    }

    int size() {
        return nodes.size();
    }

    MobileNode node(int index) {
        return nodes.get(index);
    }

    /** Records one round trip of the {@code seq}-th message, in microseconds, for the progress line and the totals. */
    void recordRoundTrip(int seq, long rttMicros) {
        trips.record(seq, rttMicros);
    }

    /** Connects every node, pausing between connections as the paper's simulator did. */
    void connectAll(long intervalMicros) throws InterruptedException {
        connect(0, nodes.size(), intervalMicros);
    }

    /**
     * Connects nodes {@code from} (inclusive) to {@code to} (exclusive), pausing between connections, and never more
     * than {@link #CONNECTING_AT_MOST} at once. Why the bound: every node here shares one source address, from which
     * a gateway runs at most {@code CKC_DTLS_HANDSHAKES_PER_ADDRESS} (64) handshakes; the ClientHellos past it are
     * dropped, sent again a second later, and so on, each waiting on a thread: 20,000 nodes connecting at once
     * opened 1,994 sessions in 142 s with the machine's load average at 230. A node whose connection is slow to
     * come holds its place for {@link #CONNECT_WAIT_SECONDS} at most (it goes on trying by itself).
     */
    void connect(int from, int to, long intervalMicros) throws InterruptedException {
        long start = System.nanoTime();
        int connectedBefore = connected.get();
        for (int i = from; i < to; i++) {
            int asked = i - from;
            long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(CONNECT_WAIT_SECONDS);
            while (asked - (connected.get() - connectedBefore) >= CONNECTING_AT_MOST && System.nanoTime() < waitUntil) {
                TimeUnit.MILLISECONDS.sleep(1);
            }
            nodes.get(i).connect();
            long due = start + TimeUnit.MICROSECONDS.toNanos(intervalMicros * (i - from + 1));
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
        }
    }

    /** The echo schedule: each node sends its messages to the echo channel. */
    void runSchedule(int messages, double ratePerMinute, Runnable tick) throws InterruptedException {
        runSchedule(messages, ratePerMinute, Schedule.Arrivals.CONSTANT, tick);
    }

    void runSchedule(int messages, double ratePerMinute, Schedule.Arrivals arrivals, Runnable tick)
            throws InterruptedException {
        runSchedule(messages, ratePerMinute, arrivals, (node, seq) -> sendEcho(node, seq), tick);
    }

    /** Sends the echo requests to {@code name} instead of the echo application's channel. */
    Fleet channel(String name) {
        this.channel = name;
        return this;
    }

    /** The {@code seq}-th echo request of a node, with its position as context. */
    void sendEcho(int node, int seq) {
        nodes.get(node).send(channel, new EchoPayload(node, seq, System.nanoTime()).encode(),
                Context.position(-22.9 + node * 1e-5, -43.2));
    }

    /** Runs {@code messages} sends per node at {@code ratePerMinute} (see {@link Schedule}), counted in {@link #sent}. */
    void runSchedule(int messages, double ratePerMinute, Schedule.Send send, Runnable tick)
            throws InterruptedException {
        runSchedule(messages, ratePerMinute, Schedule.Arrivals.CONSTANT, send, tick);
    }

    void runSchedule(int messages, double ratePerMinute, Schedule.Arrivals arrivals, Schedule.Send send, Runnable tick)
            throws InterruptedException {
        Schedule.run(nodes.size(), messages, ratePerMinute, arrivals, send, sent, tick);
    }

    /** RTT of the echoes that arrived since the last call, in microseconds. */
    Histogram takeInterval() {
        return trips.takeInterval();
    }

    Histogram total() {
        return trips.total();
    }

    /** Counts connections, handovers and errors; scenarios with their own listener extend it. */
    class Listener implements NodeListener {
        @Override
        public void connected(MobileNode node) {
            sessionOpenedAtNanos.set(indexOf(node), System.nanoTime());
            connected.incrementAndGet();
        }

        @Override
        public void disconnected(MobileNode node) {
            sessionLostAtNanos.set(indexOf(node), System.nanoTime());
            connected.decrementAndGet();
            disconnects.incrementAndGet();
            disconnectsByCause.incrementAndGet(node.lastSessionEnd().ordinal());
        }

        @Override
        public void handedOver(MobileNode node, String from, String to) {
            handovers.incrementAndGet();
            handoversPerNode.incrementAndGet(indexOf(node));
        }

        @Override
        public void newMessageReceived(MobileNode node, ReceivedMessage message) {
            EchoPayload echo = EchoPayload.decode(message.payload());
            trips.arrived(echo.node(), echo.seq(), TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - echo.sentNanos()),
                    message.messageId());
        }

        @Override
        public void unsentMessages(MobileNode node, List<Body.Outgoing> messages) {
            unsent.addAndGet(messages.size());
        }

        @Override
        public void internalException(MobileNode node, Throwable error) {
            errors.incrementAndGet();
        }
    }

    /** The congestion windows of the fleet's sockets together, in frames; -1 if a socket's loop did not answer. */
    long windowFrames() throws InterruptedException {
        long frames = 0;
        for (ClientTransport transport : transports) {
            int limit = transport.windowLimit();
            if (limit < 0) {
                return -1;
            }
            frames += limit;
        }
        return frames;
    }

    /**
     * What the fleet's nodes hold of the messages sent to them, together: waiting for a gateway, waiting for room in a
     * window, sent and not acknowledged (see {@link ClientTransport#heldMessages}); null if a socket's loop did not
     * answer.
     */
    long[] heldMessages() throws InterruptedException {
        long[] held = new long[3];
        for (ClientTransport transport : transports) {
            long[] socket = transport.heldMessages();
            if (socket == null) {
                return null;
            }
            for (int i = 0; i < held.length; i++) {
                held[i] += socket[i];
            }
        }
        return held;
    }

    @Override
    public void close() throws InterruptedException {
        nodes.forEach(MobileNode::close); // their Disconnects leave before each transport closes
        for (ClientTransport transport : transports) {
            transport.close();
        }
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
