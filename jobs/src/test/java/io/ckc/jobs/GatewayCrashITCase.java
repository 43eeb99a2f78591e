package io.ckc.jobs;

import io.ckc.client.ClientConfig;
import io.ckc.client.ClientTransport;
import io.ckc.client.MobileNode;
import io.ckc.client.NodeListener;
import io.ckc.client.ReceivedMessage;
import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.netty.DatagramTransport;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.GatewayList;
import io.ckc.protocol.records.Unicast;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.netty.channel.EventLoopGroup;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A gateway crashes (sockets, consumer and producer gone at once: no Disconnected events, no unsent
 * records, no mini-buffer) while messages are in flight to its nodes, on real parts: in-JVM KRaft,
 * the delivery job on a MiniCluster, two gateways, real nodes. The nodes notice within seconds, move
 * to the other gateway, and get every message once and in order, those in flight on the dead
 * gateway included; what their applications sent during the outage reaches Kafka, none of it
 * handed back as unsent.
 */
class GatewayCrashITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = RunningJobs.miniCluster();

    private static final int NODES = 10;
    private static final int DELIVERED_FIRST = 5;
    private static final int BURST = 20;
    private static final int DURING_OUTAGE = 5;
    private static final int UPLINK_DURING_OUTAGE = 3;

    private final RecordFormat format = new RecordFormat();

    @Test
    void nodesOfACrashedGatewayMoveOnAndGetEveryMessageOnceInOrderAndSendWhatTheyHeld() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-a", "gw-b"));
        ParameterTool params = ParameterTool.fromArgs(new String[] {
                "--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                "--app-topic-prefix", topics.appPrefix(), "--parallelism", "2"});

        Map<UUID, List<Integer>> received = new ConcurrentHashMap<>();
        AtomicInteger unsent = new AtomicInteger();
        NodeListener listener = new NodeListener() {
            @Override
            public void newMessageReceived(MobileNode node, ReceivedMessage message) {
                received.computeIfAbsent(node.id(), k -> new CopyOnWriteArrayList<>())
                        .add(ByteBuffer.wrap(message.payload()).getInt());
            }

            @Override
            public void unsentMessages(MobileNode node, List<Body.Outgoing> messages) {
                unsent.addAndGet(messages.size());
            }
        };
        Set<String> uplinkSent = ConcurrentHashMap.newKeySet();
        List<String> uplinkArrived = new CopyOnWriteArrayList<>();
        EventLoopGroup loops = DatagramTransport.current().newGroup(2);
        RunningJobs jobs = new RunningJobs().start(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build);
        Gateway doomed = Gateway.start(GatewayConfig.forTest("gw-a", KAFKA.bootstrapServers(), topics));
        try (AutoCloseable appFollower = KAFKA.followJson(topics.app("echo"), AppMessage.class,
                m -> uplinkArrived.add(m.mnId() + "/" + m.messageId()));
             KafkaProducer<String, byte[]> app = KAFKA.producer();
             Gateway survivor = Gateway.start(GatewayConfig.forTest("gw-b", KAFKA.bootstrapServers(), topics));
             ClientTransport transport = ClientTransport.open(loops)) {
            GatewayList list = new GatewayList(1, System.currentTimeMillis(), "test", List.of(
                    entry(doomed), entry(survivor)));
            app.send(new ProducerRecord<>(topics.gatewayList(), GatewayList.KEY, format.write(list))).get();
            List<MobileNode> nodes = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                MobileNode node = new MobileNode(UUID.randomUUID(), transport, doomed.udpAddress(), listener,
                        ClientConfig.DEFAULT);
                node.connect();
                nodes.add(node);
            }
            Await.until("every node on gw-a and told of both gateways", 60, () -> nodes.stream()
                    .allMatch(n -> "gw-a".equals(n.gatewayId()) && n.gatewayList().size() == 2));

            int seq = 0;
            for (; seq < DELIVERED_FIRST; seq++) {
                sendToAll(app, topics, nodes, seq);
            }
            Await.until("the first messages delivered", 60,
                    () -> nodes.stream().allMatch(n -> count(received, n) == DELIVERED_FIRST));

            // A burst, and the gateway dies under it: some delivered, some in flight, some not yet read.
            for (; seq < DELIVERED_FIRST + BURST; seq++) {
                sendToAll(app, topics, nodes, seq);
            }
            Await.until("part of the burst delivered", 30,
                    () -> nodes.stream().mapToInt(n -> count(received, n)).sum() > NODES * DELIVERED_FIRST);
            long crashedAt = System.nanoTime();
            doomed.crash();

            for (MobileNode node : nodes) {
                for (int u = 0; u < UPLINK_DURING_OUTAGE; u++) {
                    uplinkSent.add(node.id() + "/" + node.send("echo", ("up-" + u).getBytes(), null));
                }
            }
            for (; seq < DELIVERED_FIRST + BURST + DURING_OUTAGE; seq++) {
                sendToAll(app, topics, nodes, seq);
            }
            Await.until("every node on gw-b", 30, () -> nodes.stream().allMatch(n -> "gw-b".equals(n.gatewayId())));
            long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedAt);
            System.out.println("GatewayCrashITCase: every node served by gw-b " + failoverMs + " ms after the crash");

            int total = seq;
            Await.until("every message at every node", 60,
                    () -> nodes.stream().allMatch(n -> count(received, n) >= total));
            Await.until("every message the nodes sent during the outage in Kafka", 60,
                    () -> uplinkArrived.containsAll(uplinkSent));

            List<Integer> all = IntStream.range(0, total).boxed().toList();
            for (MobileNode node : nodes) {
                assertThat(received.get(node.id())).as("node %s: each message once, in order", node.id())
                        .containsExactlyElementsOf(all);
            }
            assertThat(unsent.get()).as("messages handed back to the nodes' applications").isZero();
            assertThat(failoverMs).as("the nodes noticed the dead gateway long before its silence timeout")
                    .isLessThan(ClientConfig.DEFAULT.silenceTimeoutMs());
            nodes.forEach(MobileNode::close);
        } finally {
            jobs.close();
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static GatewayList.Entry entry(Gateway gateway) {
        return new GatewayList.Entry(gateway.id(), List.of(new Endpoint(Endpoint.UDP,
                gateway.udpAddress().getHostString(), gateway.udpAddress().getPort())), 1.0, 0);
    }

    private void sendToAll(KafkaProducer<String, byte[]> app, Topics topics, List<MobileNode> nodes, int seq) {
        for (MobileNode node : nodes) {
            Unicast unicast = new Unicast(UUID.randomUUID().toString(), "crash-it-app", node.id().toString(),
                    ByteBuffer.allocate(4).putInt(seq).array(), null, System.currentTimeMillis(), false);
            app.send(new ProducerRecord<>(topics.toMn(), unicast.recipient(), format.write(unicast)));
        }
        app.flush();
    }

    private static int count(Map<UUID, List<Integer>> received, MobileNode node) {
        List<Integer> list = received.get(node.id());
        return list == null ? 0 : list.size();
    }
}
