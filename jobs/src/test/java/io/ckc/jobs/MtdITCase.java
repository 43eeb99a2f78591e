package io.ckc.jobs;

import io.ckc.client.ClientConfig;
import io.ckc.client.ClientTransport;
import io.ckc.client.MobileNode;
import io.ckc.client.NodeListener;
import io.ckc.client.ReceivedMessage;
import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.EventLoopGroup;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MTD on real parts (in-JVM KRaft, MiniCluster, a gateway, real nodes): half the nodes go away
 * while messages with a short and a long TTL are sent to them, the delivery job is cancelled and
 * started again from its latest checkpoint in the middle, and when the nodes come back they get
 * exactly the messages that did not expire, each once and in order. The senders' receipts agree.
 */
class MtdITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = RunningJobs.miniCluster();

    private static final int NODES = 20;
    private static final long SHORT_TTL_MS = 2_000;
    private static final String SENDER = "mtd-it-app";

    private final RecordFormat format = new RecordFormat();

    @Test
    void nodesAwayLongerThanSomeTtlsGetExactlyTheLiveMessagesOnceInOrderAcrossARestartAndTwoRescales() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of(), List.of("gw-1"));
        ParameterTool params = ParameterTool.fromArgs(new String[] {
                "--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                "--app-topic-prefix", topics.appPrefix(), "--parallelism", "2", "--mtd-default-ttl-ms", "120000"});

        Map<UUID, List<Integer>> received = new ConcurrentHashMap<>();
        Set<UUID> connectedNow = ConcurrentHashMap.newKeySet();
        NodeListener listener = new NodeListener() {
            @Override
            public void connected(MobileNode node) {
                connectedNow.add(node.id());
            }

            @Override
            public void disconnected(MobileNode node) {
                connectedNow.remove(node.id());
            }

            @Override
            public void newMessageReceived(MobileNode node, ReceivedMessage message) {
                received.computeIfAbsent(node.id(), k -> new CopyOnWriteArrayList<>())
                        .add(ByteBuffer.wrap(message.payload()).getInt());
            }
        };
        List<Receipt> receipts = new CopyOnWriteArrayList<>();
        Map<String, Integer> shortLived = new ConcurrentHashMap<>(); // message id -> seq, for the nodes away
        EventLoopGroup loops = DatagramTransport.current().newGroup(2);
        RunningJobs jobs = new RunningJobs().start(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build);
        try (AutoCloseable receiptFollower = KAFKA.followJson(topics.receipts(), Receipt.class, receipts::add);
             KafkaProducer<String, byte[]> app = KAFKA.producer();
             Gateway gateway = Gateway.start(GatewayConfig.forTest("gw-1", KAFKA.bootstrapServers(), topics));
             ClientTransport transport = ClientTransport.open(loops)) {
            List<MobileNode> nodes = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                MobileNode node = new MobileNode(UUID.randomUUID(), transport, gateway.udpAddress(), listener,
                        ClientConfig.DEFAULT);
                node.connect();
                nodes.add(node);
            }
            List<MobileNode> fixed = nodes.subList(0, NODES / 2);
            List<MobileNode> away = nodes.subList(NODES / 2, NODES);
            Await.until("all nodes connected", 60, () -> connectedNow.size() == NODES);

            // 1. Everyone connected: messages 0 and 1 arrive at once.
            for (int seq = 0; seq <= 1; seq++) {
                for (MobileNode node : nodes) {
                    send(app, topics, node, seq, null);
                }
            }
            Await.until("messages 0 and 1 everywhere", 60, () -> nodes.stream().allMatch(n -> count(received, n) == 2));

            // 2. Half the nodes go away; 2 and 4 for them live 2 s, 3 lives 2 minutes.
            away.forEach(MobileNode::disconnect);
            Await.until("the away nodes disconnected", 30, () -> away.stream().noneMatch(n -> connectedNow.contains(n.id())));
            for (int seq = 2; seq <= 4; seq++) {
                for (MobileNode node : nodes) {
                    boolean shortTtl = away.contains(node) && seq != 3;
                    String id = send(app, topics, node, seq, shortTtl ? SHORT_TTL_MS : null);
                    if (shortTtl) {
                        shortLived.put(id, seq);
                    }
                }
            }
            long phaseTwoSentAt = System.currentTimeMillis();

            // 3. While the messages wait in its state, the delivery job restarts from its latest checkpoint,
            // then is rescaled by savepoint from 2 to 1 and back to 2: every node's parked messages, in
            // their key groups, must move with it, in order and with their deadlines.
            Path restored = jobs.restartFromLatestCheckpoint(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build,
                    30_000);
            System.out.println("MTD IT: delivery job restarted from " + restored);
            ParameterTool narrow = params.mergeWith(ParameterTool.fromArgs(new String[] {"--parallelism", "1"}));
            System.out.println("MTD IT: rescaled to 1 from "
                    + jobs.rescaleFromSavepoint(DeliveryJob.NAME, DeliveryJob.fromArgs(narrow)::build));
            System.out.println("MTD IT: rescaled to 2 from "
                    + jobs.rescaleFromSavepoint(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build));

            // 4. After the short TTLs have passed, one more message for everyone, then the nodes come back.
            Thread.sleep(Math.max(0, phaseTwoSentAt + SHORT_TTL_MS + 500 - System.currentTimeMillis()));
            for (MobileNode node : nodes) {
                send(app, topics, node, 5, null);
            }
            away.forEach(MobileNode::connect);
            Await.until("every node has its live messages", 90, () -> fixed.stream().allMatch(n -> count(received, n) == 6)
                    && away.stream().allMatch(n -> count(received, n) == 4));
            Thread.sleep(1_500); // room for a late duplicate or a wrongly replayed expired message

            for (MobileNode node : fixed) {
                assertThat(received.get(node.id())).as("fixed node %s", node.id()).containsExactly(0, 1, 2, 3, 4, 5);
            }
            for (MobileNode node : away) {
                assertThat(received.get(node.id())).as("node %s, away past the short TTL", node.id())
                        .containsExactly(0, 1, 3, 5);
            }
            Await.until("a receipt for every short-lived message", 30,
                    () -> receipts.stream().map(Receipt::messageId).collect(Collectors.toSet())
                            .containsAll(shortLived.keySet()));
            Map<String, Set<Receipt.Outcome>> outcomes = receipts.stream().collect(Collectors.groupingBy(
                    Receipt::messageId, Collectors.mapping(Receipt::outcome, Collectors.toSet())));
            for (String id : shortLived.keySet()) {
                assertThat(outcomes.get(id)).as("receipt of short-lived %s", id).containsExactly(Receipt.Outcome.EXPIRED);
            }
            long deliveredReceipts = outcomes.values().stream().filter(o -> o.equals(Set.of(Receipt.Outcome.DELIVERED)))
                    .count();
            assertThat(deliveredReceipts).as("DELIVERED receipts (one per message that arrived)")
                    .isEqualTo(6L * fixed.size() + 4L * away.size());
            nodes.forEach(MobileNode::close);
        } finally {
            jobs.close();
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** The test's core application: a unicast with a receipt, payload = its sequence number. */
    private String send(KafkaProducer<String, byte[]> app, Topics topics, MobileNode node, int seq, Long ttlMs) {
        String id = UUID.randomUUID().toString();
        Unicast unicast = new Unicast(id, SENDER, node.id().toString(), ByteBuffer.allocate(4).putInt(seq).array(),
                ttlMs, System.currentTimeMillis(), true);
        app.send(new ProducerRecord<>(topics.toMn(), unicast.recipient(), format.write(unicast)));
        app.flush();
        return id;
    }

    private static int count(Map<UUID, List<Integer>> received, MobileNode node) {
        List<Integer> list = received.get(node.id());
        return list == null ? 0 : list.size();
    }
}
