package io.ckc.perf;

import io.ckc.client.MobileNode;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.UUID;

/**
 * The nodes of an MTD run, whatever their protocol: reliable-UDP nodes ({@link Fleet}), MQTT 5 devices
 * ({@link MqttFleet}), or both interleaved (even numbers UDP, odd MQTT). Each answers what it receives through
 * {@link MtdRun#received}; nodes leave and come back as the run says.
 */
interface MtdNodes extends AutoCloseable {

    /** The node id the application sends node {@code node}'s unicasts to. */
    UUID nodeId(int node);

    /** Connects every node, pausing between connections. */
    void connectAll() throws InterruptedException;

    int connected();

    /** Node {@code node} disconnects on purpose; what is sent to it meanwhile waits in the MTD. */
    void leave(int node);

    /** Node {@code node} connects again: at the gateway after the one it left with {@code move}, else the same. */
    void comeBack(int node, boolean move);

    /** Messages the nodes' SDKs handed back as unsent. */
    long unsent();

    /** Deliveries the nodes dropped as repeats of one they had (by message id). */
    long duplicatesDroppedByNodes();

    /** The run's nodes on {@code protocol}'s path ({@link ProtocolOption#path}), each answering through {@code run}. */
    static MtdNodes open(String path, StackOptions stack, int nodes, MtdRun run) throws InterruptedException {
        return switch (path) {
            case Results.CKC -> udp(stack, nodes, run, 1);
            case Results.MQTT -> mqtt(stack, nodes, run, 1);
            case Results.MIXED -> mixed(udp(stack, (nodes + 1) / 2, run, 2), mqtt(stack, nodes / 2, run, 2));
            default -> throw new IllegalArgumentException("no MTD nodes on the " + path + " path");
        };
    }

    /**
     * Reliable-UDP nodes; the fleet's node {@code i} is the run's node {@code i * stride} (its payloads name that
     * number).
     */
    private static MtdNodes udp(StackOptions stack, int count, MtdRun run, int stride) throws InterruptedException {
        List<InetSocketAddress> gateways = stack.gatewayAddresses();
        Fleet fleet = new Fleet(count, gateways, stack.ioThreads, run::listener);
        return new MtdNodes() {
            public UUID nodeId(int node) {
                return fleet.node(node / stride).id();
            }

            public void connectAll() throws InterruptedException {
                fleet.connectAll(1000);
            }

            public int connected() {
                return fleet.connected.get();
            }

            public void leave(int node) {
                fleet.node(node / stride).disconnect();
            }

            public void comeBack(int node, boolean move) {
                MobileNode mn = fleet.node(node / stride);
                int left = gateways.indexOf(mn.gatewayAddress());
                if (!move || left < 0) {
                    mn.connect();
                } else {
                    mn.connectTo(gateways.get((left + 1) % gateways.size()));
                }
            }

            public long unsent() {
                return fleet.unsent.get();
            }

            public long duplicatesDroppedByNodes() {
                return fleet.duplicatesDroppedByNodes();
            }

            public void close() throws Exception {
                fleet.close();
            }
        };
    }

    /** MQTT 5 devices on the gateways' MQTT ports; the fleet's device {@code i} is the run's node {@code i * stride}. */
    private static MtdNodes mqtt(StackOptions stack, int count, MtdRun run, int stride) {
        if (stack.mqttGateways.isEmpty()) {
            throw new IllegalArgumentException("MQTT devices need --mqtt-gateways");
        }
        MqttFleet fleet = new MqttFleet(count, stack.mqttAddresses(), stack.ioThreads);
        fleet.deliveries((device, payload) -> {
            if (run.received(payload)) {
                fleet.send(device, MtdCommand.REPLY_CHANNEL, payload);
            }
        });
        return new MtdNodes() {
            public UUID nodeId(int node) {
                return fleet.nodeId(node / stride);
            }

            public void connectAll() throws InterruptedException {
                fleet.connectAll(1000);
            }

            public int connected() {
                return fleet.connected.get();
            }

            public void leave(int node) {
                fleet.leave(node / stride);
            }

            public void comeBack(int node, boolean move) {
                fleet.comeBack(node / stride, move);
            }

            public long unsent() {
                return fleet.refused.get();
            }

            public long duplicatesDroppedByNodes() {
                return fleet.duplicatesDroppedByDevices();
            }

            public void close() throws Exception {
                fleet.close();
            }
        };
    }

    /** Even nodes from {@code even}, odd ones from {@code odd}. */
    private static MtdNodes mixed(MtdNodes even, MtdNodes odd) {
        return new MtdNodes() {
            private MtdNodes of(int node) {
                return node % 2 == 0 ? even : odd;
            }

            public UUID nodeId(int node) {
                return of(node).nodeId(node);
            }

            public void connectAll() throws InterruptedException {
                even.connectAll();
                odd.connectAll();
            }

            public int connected() {
                return even.connected() + odd.connected();
            }

            public void leave(int node) {
                of(node).leave(node);
            }

            public void comeBack(int node, boolean move) {
                of(node).comeBack(node, move);
            }

            public long unsent() {
                return even.unsent() + odd.unsent();
            }

            public long duplicatesDroppedByNodes() {
                return even.duplicatesDroppedByNodes() + odd.duplicatesDroppedByNodes();
            }

            public void close() throws Exception {
                try {
                    odd.close();
                } finally {
                    even.close();
                }
            }
        };
    }
}
