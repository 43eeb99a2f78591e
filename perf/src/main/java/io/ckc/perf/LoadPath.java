package io.ckc.perf;

import io.ckc.client.ClientConfig;
import io.ckc.protocol.kafka.Topics;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One path an open-loop load runs over: the CKC stack (a fleet of simulated UDP nodes or MQTT devices on the
 * gateways), a Mosquitto broker with an echo client, or the bare-Kafka echo. Each counts its echoes in
 * {@link #trips()}.
 */
interface LoadPath extends AutoCloseable {

    RoundTrips trips();

    /** The {@code seq}-th echo request of {@code node}. */
    void send(int node, int seq);

    /** Messages the senders gave up on without sending (the fleet sheds what waited too long for the window). */
    long shed();

    /** Sessions that ended without being asked to (the fleet's disconnects); none on the baseline. */
    long droppedSessions();

    /** Sessions ended by cause ({@link io.ckc.client.MobileNode.SessionEnd}), the nodes' connection phase included; empty on the baseline. */
    String droppedSessionCauses();

    /** Nodes connected now; the baseline has no sessions and counts all. */
    int connected();

    /**
     * When node {@code node}'s last session ended without being asked to, and when it last had a session open
     * ({@link System#nanoTime()} each, {@link Long#MIN_VALUE} before the first), or null where the path does not keep
     * them (MQTT devices, the baseline).
     */
    default long[] sessionLostAndOpenedNanos(int node) {
        return null;
    }

    /** The congestion windows of the path's sockets together, in frames; -1 where it has none (MQTT, the baseline). */
    default long windowFrames() throws InterruptedException {
        return -1;
    }

    /**
     * What the path's nodes hold of the messages sent to them: waiting for a gateway, waiting for room in a window,
     * sent and not acknowledged; null where it does not know (MQTT, the baseline) or a socket did not answer.
     */
    default long[] heldMessages() throws InterruptedException {
        return null;
    }

    /** Node {@code node} loses its link at once, as when its network goes away, and connects again as it would. */
    default void linkLost(int node) {
        throw new UnsupportedOperationException("this path has no links to lose");
    }

    /** Deliveries the nodes dropped as repeats of one they had (by message id); none where nothing repeats. */
    default long duplicatesDroppedByNodes() {
        return 0;
    }

    /**
     * The nodes with a session on gateway {@code gatewayId} now, as the nodes see it, or null where the path does not
     * keep when its nodes' sessions end and open ({@link #sessionLostAndOpenedNanos}) for all its nodes.
     */
    default int[] nodesOn(String gatewayId) {
        return null;
    }

    /** Connected nodes per gateway id, as the nodes see it; a path without gateways has none. */
    default Map<String, Integer> countsByGateway() {
        return Map.of();
    }

    /** Handovers the nodes followed. */
    default long handovers() {
        return 0;
    }

    /** The most handovers one node followed. */
    default int maxHandoversOfANode() {
        return 0;
    }

    /** Processes of its own the path runs, by name, beside the stack's (the Mosquitto broker); none by default. */
    default Map<String, Integer> processes() {
        return Map.of();
    }

    /**
     * The path named {@code path} with {@code nodes} nodes connected: ckc (UDP nodes on the gateways), mqtt (MQTT 5
     * devices on the gateways' MQTT ports), mosquitto (MQTT 5 devices on a Mosquitto broker started for it, with
     * {@link MqttEchoResponder} answering), mixed (half UDP nodes, half MQTT devices, on the same gateways at once),
     * or kafka (the bare-Kafka echo).
     */
    static LoadPath open(String path, StackOptions stack, int nodes, PrintStream out) throws Exception {
        return open(path, stack, nodes, out, Fleet.SHEDDING);
    }

    /**
     * The same, with the UDP nodes' settings given: a load past saturation sheds ({@link Fleet#SHEDDING}, the
     * default), a nominal one keeps every message ({@code ClientConfig.DEFAULT}).
     */
    static LoadPath open(String path, StackOptions stack, int nodes, PrintStream out, ClientConfig udpNodes)
            throws Exception {
        if (path.equals(Results.MQTT)) {
            if (stack.mqttGateways.isEmpty()) {
                throw new IllegalArgumentException("the mqtt path needs --mqtt-gateways");
            }
            return mqtt(MqttFleet.connected(nodes, stack.mqttAddresses(), stack.ioThreads, stack.channel, out),
                    () -> { }, Map.of());
        }
        if (path.equals(Results.MIXED)) {
            return mixed(stack, nodes, out, udpNodes);
        }
        if (path.equals(Results.MOSQUITTO)) {
            String missing = Mosquitto.unavailable(stack.mosquitto);
            if (missing != null) {
                throw new IllegalStateException(missing);
            }
            Mosquitto broker = Mosquitto.start(stack.mosquitto, stack.mosquittoPort,
                    stack.resultsDir.resolve("mosquitto"));
            EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
            try {
                MqttEchoResponder responder = new MqttEchoResponder(loop, broker.address(), stack.channel);
                MqttFleet fleet = MqttFleet.connected(new MqttFleet(nodes, List.of(broker.address()), stack.ioThreads)
                        .channel(stack.channel).onMosquitto(), List.of(broker.address()), out);
                return mqtt(fleet, () -> {
                    responder.close();
                    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
                    broker.close();
                }, Map.of(Results.MOSQUITTO, broker.pid()));
            } catch (Exception e) {
                loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
                broker.close();
                throw e;
            }
        }
        if (path.equals(Results.CKC)) {
            return udp(Fleet.connected(nodes, stack, udpNodes, out));
        }
        if (path.equals(Results.CKC_IN_JOB)) {
            return udp(Fleet.connected(nodes, stack, udpNodes, out).channel(Topics.IN_JOB_ECHO_CHANNEL));
        }
        if (path.equals(Results.KAFKA)) {
            BaselineEcho baseline = new BaselineEcho(stack.bootstrap, nodes);
            return new LoadPath() {
                public RoundTrips trips() {
                    return baseline.trips;
                }

                public void send(int node, int seq) {
                    baseline.send(node, seq);
                }

                public long shed() {
                    return 0;
                }

                public long droppedSessions() {
                    return 0;
                }

                public String droppedSessionCauses() {
                    return "";
                }

                public int connected() {
                    return nodes;
                }

                public void close() throws Exception {
                    baseline.close();
                }
            };
        }
        throw new IllegalArgumentException("unknown path " + path + ": ckc, mqtt, mixed, mosquitto or kafka");
    }

    /** Nodes 0 to n/2-1 UDP nodes, the rest MQTT devices, on the same gateways, their round trips in one record. */
    private static LoadPath mixed(StackOptions stack, int nodes, PrintStream out, ClientConfig udpConfig)
            throws Exception {
        if (stack.gateways.isEmpty() || stack.mqttGateways.isEmpty()) {
            throw new IllegalArgumentException("the mixed path needs --gateways and --mqtt-gateways");
        }
        int udpNodes = nodes / 2;
        RoundTrips trips = new RoundTrips(nodes);
        Fleet udp = new Fleet(udpNodes, stack.gatewayAddresses(), stack.ioThreads, f -> f.new Listener(),
                udpConfig, trips).channel(stack.channel);
        MqttFleet mqtt = new MqttFleet(nodes - udpNodes, stack.mqttAddresses(), stack.ioThreads, trips, udpNodes)
                .channel(stack.channel);
        udp.connectAll(1000);
        mqtt.connectAll(1000);
        Fleet.waitFor(() -> udp.connected.get() + mqtt.connected.get() + mqtt.errors.get() >= nodes, 180, () -> { });
        out.printf("%d of %d UDP nodes and %d of %d MQTT devices connected%n", udp.connected.get(), udpNodes,
                mqtt.connected.get(), nodes - udpNodes);
        LoadPath udpPath = udp(udp);
        LoadPath mqttPath = mqtt(mqtt, () -> { }, Map.of());
        return new LoadPath() {
            public RoundTrips trips() {
                return trips;
            }

            public void send(int node, int seq) {
                (node < udpNodes ? udpPath : mqttPath).send(node, seq);
            }

            public void linkLost(int node) {
                (node < udpNodes ? udpPath : mqttPath).linkLost(node);
            }

            public long[] sessionLostAndOpenedNanos(int node) {
                return node < udpNodes ? udpPath.sessionLostAndOpenedNanos(node) : null;
            }

            public long windowFrames() throws InterruptedException {
                return udpPath.windowFrames();
            }

            public long[] heldMessages() throws InterruptedException {
                return udpPath.heldMessages();
            }

            public long duplicatesDroppedByNodes() {
                return udpPath.duplicatesDroppedByNodes() + mqttPath.duplicatesDroppedByNodes();
            }

            public long shed() {
                return udpPath.shed() + mqttPath.shed();
            }

            public long droppedSessions() {
                return udpPath.droppedSessions() + mqttPath.droppedSessions();
            }

            public String droppedSessionCauses() {
                return udpPath.droppedSessionCauses();
            }

            public int connected() {
                return udpPath.connected() + mqttPath.connected();
            }

            public Map<String, Integer> countsByGateway() {
                Map<String, Integer> counts = new java.util.TreeMap<>(udpPath.countsByGateway());
                mqttPath.countsByGateway().forEach((gateway, count) -> counts.merge(gateway, count, Integer::sum));
                return counts;
            }

            public long handovers() {
                return udpPath.handovers() + mqttPath.handovers();
            }

            public int maxHandoversOfANode() {
                return Math.max(udpPath.maxHandoversOfANode(), mqttPath.maxHandoversOfANode());
            }

            public void close() throws Exception {
                try {
                    mqttPath.close();
                } finally {
                    udpPath.close();
                }
            }
        };
    }

    /** A path of UDP nodes; sessions that end from here on count as dropped. */
    private static LoadPath udp(Fleet fleet) {
        long disconnectsBefore = fleet.disconnects.get();
        return new LoadPath() {
            public RoundTrips trips() {
                return fleet.trips;
            }

            public void send(int node, int seq) {
                fleet.sendEcho(node, seq);
            }

            public void linkLost(int node) {
                fleet.node(node).linkLost();
            }

            public long[] sessionLostAndOpenedNanos(int node) {
                return fleet.sessionLostAndOpenedNanos(node);
            }

            public int[] nodesOn(String gatewayId) {
                return fleet.nodesOn(gatewayId);
            }

            public long windowFrames() throws InterruptedException {
                return fleet.windowFrames();
            }

            public long[] heldMessages() throws InterruptedException {
                return fleet.heldMessages();
            }

            public long duplicatesDroppedByNodes() {
                return fleet.duplicatesDroppedByNodes();
            }

            public long shed() {
                return fleet.unsent.get();
            }

            public long droppedSessions() {
                return fleet.disconnects.get() - disconnectsBefore;
            }

            public String droppedSessionCauses() {
                return fleet.disconnectsByCause();
            }

            public int connected() {
                return fleet.connected.get();
            }

            public Map<String, Integer> countsByGateway() {
                return fleet.countsByGateway();
            }

            public long handovers() {
                return fleet.handovers.get();
            }

            public int maxHandoversOfANode() {
                return fleet.maxHandoversOfANode();
            }

            public void close() throws Exception {
                fleet.close();
            }
        };
    }

    /** A path of MQTT devices; {@code after} stops what the path started once the fleet is closed. */
    private static LoadPath mqtt(MqttFleet fleet, AutoCloseable after, Map<String, Integer> processes) {
        return new LoadPath() {
            public RoundTrips trips() {
                return fleet.trips;
            }

            public void send(int node, int seq) {
                fleet.sendEcho(node, seq);
            }

            public void linkLost(int node) {
                fleet.linkLost(node);
            }

            public long duplicatesDroppedByNodes() {
                return fleet.duplicatesDroppedByDevices();
            }

            public long shed() {
                return fleet.refused.get();
            }

            public long droppedSessions() {
                return fleet.size() - fleet.connected.get();
            }

            public String droppedSessionCauses() {
                return (fleet.errors.get() == 0 ? "" : "errors=" + fleet.errors.get() + " ")
                        + (fleet.refusedConnects.get() == 0 ? "" : "refused_connects=" + fleet.refusedConnects.get());
            }

            public int connected() {
                return fleet.connected.get();
            }

            public Map<String, Integer> countsByGateway() {
                return fleet.countsByGateway();
            }

            public long handovers() {
                return fleet.handovers.get();
            }

            public int maxHandoversOfANode() {
                return fleet.maxHandoversOfADevice();
            }

            public Map<String, Integer> processes() {
                return processes;
            }

            public void close() throws Exception {
                try {
                    fleet.close();
                } finally {
                    after.close();
                }
            }
        };
    }
}
