package io.ckc.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ckc.client.MobileNode;
import io.ckc.client.ReceivedMessage;
import io.ckc.protocol.kafka.Json;
import io.ckc.protocol.records.Context;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.UUID;

/**
 * The nodes of a scenario that addresses them one by one (the MTD's unicasts, groupcasts to the members of a group),
 * whatever their protocol: reliable-UDP nodes ({@link Fleet}), MQTT 5 devices ({@link MqttFleet}), or both interleaved
 * (even numbers UDP, odd MQTT). Each hands what it receives to the scenario's {@link Deliveries}; nodes report their
 * context, send, leave and come back as the scenario says.
 */
interface SimulatedNodes extends AutoCloseable {

    /** What the scenario does with a delivery: node {@code node} received {@code payload}, repeats dropped. */
    interface Deliveries {
        /**
         * @param messageId the delivery's message id (a groupcast's own id for each member); null when an MQTT
         *                  delivery carried none
         */
        void received(SimulatedNodes nodes, int node, UUID messageId, byte[] payload);
    }

    /** The node id applications send node {@code node}'s unicasts to. */
    UUID nodeId(int node);

    /** Connects every node, pausing {@code intervalMicros} between connections. */
    void connectAll(long intervalMicros) throws InterruptedException;

    int connected();

    /** Node {@code node} sends {@code payload} to the application channel {@code channel} (Kafka app.channel). */
    void send(int node, String channel, byte[] payload);

    /**
     * Node {@code node} reports its context: a reliable-UDP node with a message on {@code channel}, an MQTT device on
     * its context topic.
     */
    void reportContext(int node, String channel, Context context);

    /** Node {@code node} disconnects on purpose; what is sent to it meanwhile waits in the MTD. */
    void leave(int node);

    /** Node {@code node} connects again: at the gateway after the one it left with {@code move}, else the same. */
    void comeBack(int node, boolean move);

    /** Messages the nodes' SDKs handed back as unsent, or the gateways refused. */
    long unsent();

    /** Deliveries the nodes dropped as repeats of one they had (by message id). */
    long duplicatesDroppedByNodes();

    /**
     * {@code nodes} nodes on {@code protocol}'s path ({@link ProtocolOption#path}) on the stack's gateways (each spread
     * over them in turn), each handing what it receives to {@code deliveries}.
     */
    static SimulatedNodes open(String path, StackOptions stack, int nodes, Deliveries deliveries)
            throws InterruptedException {
        return switch (path) {
            case Results.CKC -> udp(stack, nodes, deliveries, 1);
            case Results.MQTT -> mqtt(stack, nodes, deliveries, 1, 0);
            case Results.MIXED -> mixed(udp(stack, (nodes + 1) / 2, deliveries, 2),
                    mqtt(stack, nodes / 2, deliveries, 2, 1));
            default -> throw new IllegalArgumentException("no simulated nodes on the " + path + " path");
        };
    }

    /**
     * Reliable-UDP nodes; the fleet's node {@code i} is the scenario's node {@code i * stride} (its payloads name that
     * number).
     */
    private static SimulatedNodes udp(StackOptions stack, int count, Deliveries deliveries, int stride)
            throws InterruptedException {
        List<InetSocketAddress> gateways = stack.gatewayAddresses();
        if (gateways.isEmpty()) {
            throw new IllegalArgumentException("UDP nodes need --gateways");
        }
        SimulatedNodes[] self = new SimulatedNodes[1];
        Fleet fleet = new Fleet(count, gateways, stack.ioThreads, f -> f.new Listener() {
            @Override
            public void newMessageReceived(MobileNode node, ReceivedMessage message) {
                deliveries.received(self[0], Fleet.indexOf(node) * stride, message.messageId(), message.payload());
            }
        });
        self[0] = new SimulatedNodes() {
            public UUID nodeId(int node) {
                return fleet.node(node / stride).id();
            }

            public void connectAll(long intervalMicros) throws InterruptedException {
                fleet.connectAll(intervalMicros);
            }

            public int connected() {
                return fleet.connected.get();
            }

            public void send(int node, String channel, byte[] payload) {
                fleet.node(node / stride).send(channel, payload, null);
            }

            public void reportContext(int node, String channel, Context context) {
                fleet.node(node / stride).send(channel, new byte[] {1}, context);
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
        return self[0];
    }

    /**
     * MQTT 5 devices on the gateways' MQTT ports; the fleet's device {@code i} is the scenario's node
     * {@code i * stride + offset}.
     */
    private static SimulatedNodes mqtt(StackOptions stack, int count, Deliveries deliveries, int stride, int offset) {
        if (stack.mqttGateways.isEmpty()) {
            throw new IllegalArgumentException("MQTT devices need --mqtt-gateways");
        }
        MqttFleet fleet = new MqttFleet(count, stack.mqttAddresses(), stack.ioThreads);
        ObjectMapper json = Json.newMapper();
        SimulatedNodes self = new SimulatedNodes() {
            public UUID nodeId(int node) {
                return fleet.nodeId(node / stride);
            }

            public void connectAll(long intervalMicros) throws InterruptedException {
                fleet.connectAll(intervalMicros);
            }

            public int connected() {
                return fleet.connected.get();
            }

            public void send(int node, String channel, byte[] payload) {
                fleet.send(node / stride, channel, payload);
            }

            public void reportContext(int node, String channel, Context context) {
                fleet.reportContext(node / stride, Json.write(json, context));
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
        fleet.deliveries((device, messageId, payload) -> deliveries.received(self, device * stride + offset,
                messageId, payload));
        return self;
    }

    /** Even nodes from {@code even}, odd ones from {@code odd}. */
    private static SimulatedNodes mixed(SimulatedNodes even, SimulatedNodes odd) {
        return new SimulatedNodes() {
            private SimulatedNodes of(int node) {
                return node % 2 == 0 ? even : odd;
            }

            public UUID nodeId(int node) {
                return of(node).nodeId(node);
            }

            public void connectAll(long intervalMicros) throws InterruptedException {
                even.connectAll(intervalMicros);
                odd.connectAll(intervalMicros);
            }

            public int connected() {
                return even.connected() + odd.connected();
            }

            public void send(int node, String channel, byte[] payload) {
                of(node).send(node, channel, payload);
            }

            public void reportContext(int node, String channel, Context context) {
                of(node).reportContext(node, channel, context);
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
