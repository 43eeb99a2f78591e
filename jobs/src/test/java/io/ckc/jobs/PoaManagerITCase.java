package io.ckc.jobs;

import io.ckc.client.ClientConfig;
import io.ckc.client.ClientTransport;
import io.ckc.client.MobileNode;
import io.ckc.client.NodeListener;
import io.ckc.client.ReceivedMessage;
import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.jobs.echo.EchoJob;
import io.ckc.jobs.poa.PoaManagerJob;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.BalanceRound;
import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.protocol.records.GatewayList;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.EventLoopGroup;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The PoA manager on real parts: three gateways, 600 nodes all starting on the first, the echo
 * application round-tripping messages while the nodes are handed over, then one gateway killed.
 */
class PoaManagerITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(6)
                    .build());

    private static final int NODES = 600;
    private static final int MESSAGES = 5;
    private static final long REPORT_PERIOD_MS = 500;
    private static final int LIVENESS_PERIODS = 3;
    private static final int MAX_HANDOVERS_PER_ROUND = 100;

    @Test
    void sixHundredNodesOnOneGatewaySpreadOverThreeThenLeaveAKilledOneWithEveryEchoExactlyOnceAcrossRescales() throws Exception {
        Topics topics = KAFKA.freshTopics();
        List<String> gatewayIds = List.of("gw-1", "gw-2", "gw-3");
        KAFKA.createTopics(topics, List.of("echo"), gatewayIds);
        ParameterTool params = ParameterTool.fromArgs(new String[] {
                "--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                "--app-topic-prefix", topics.appPrefix(), "--parallelism", "2",
                "--liveness-periods", String.valueOf(LIVENESS_PERIODS), "--check-interval-ms", "500",
                "--settle-ms", "500", "--handover-cooldown-ms", "600000",
                "--max-handovers-per-round", String.valueOf(MAX_HANDOVERS_PER_ROUND)});

        AtomicReference<GatewayList> latestList = new AtomicReference<>();
        List<BalanceRound> rounds = new CopyOnWriteArrayList<>();
        List<ConnectionStatistics> statistics = new CopyOnWriteArrayList<>();
        Map<UUID, Set<Integer>> echoes = new ConcurrentHashMap<>();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger unsent = new AtomicInteger();
        Map<UUID, AtomicInteger> handovers = new ConcurrentHashMap<>();
        AtomicInteger connected = new AtomicInteger();
        NodeListener listener = new NodeListener() {
            @Override
            public void connected(MobileNode node) {
                connected.incrementAndGet();
            }

            @Override
            public void disconnected(MobileNode node) {
                connected.decrementAndGet();
            }

            @Override
            public void handedOver(MobileNode node, String from, String to) {
                handovers.computeIfAbsent(node.id(), k -> new AtomicInteger()).incrementAndGet();
            }

            @Override
            public void newMessageReceived(MobileNode node, ReceivedMessage message) {
                if (!echoes.computeIfAbsent(node.id(), k -> ConcurrentHashMap.newKeySet())
                        .add(ByteBuffer.wrap(message.payload()).getInt())) {
                    duplicates.incrementAndGet();
                }
            }

            @Override
            public void unsentMessages(MobileNode node, List<Body.Outgoing> messages) {
                unsent.addAndGet(messages.size());
            }
        };
        ClientConfig clientConfig = ClientConfig.DEFAULT.withLiveness(1_000, 3_000, 4);
        EventLoopGroup loops = DatagramTransport.current().newGroup(2);
        List<Gateway> gateways = new ArrayList<>();
        try (RunningJobs jobs = new RunningJobs()
                .start(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build)
                .start(EchoJob.NAME, EchoJob.fromArgs(params)::build)
                .start(PoaManagerJob.NAME, PoaManagerJob.fromArgs(params)::build);
             AutoCloseable listFollower = KAFKA.followJson(topics.gatewayList(), GatewayList.class, latestList::set);
             AutoCloseable roundFollower = KAFKA.followJson(topics.balanceRounds(), BalanceRound.class, rounds::add);
             AutoCloseable statsFollower = KAFKA.followJson(topics.gatewayStats(), ConnectionStatistics.class, statistics::add);
             ClientTransport t1 = ClientTransport.open(loops);
             ClientTransport t2 = ClientTransport.open(loops)) {
            for (String id : gatewayIds) {
                gateways.add(Gateway.start(GatewayConfig.forTest(id, KAFKA.bootstrapServers(), topics)
                        .toBuilder().reportPeriodMs(REPORT_PERIOD_MS).pingIntervalMs(1_000).pingWindowMs(300)
                        .reportChunk(250).build()));
            }
            Await.until("all three gateways are listed", 60, () -> listed(latestList).size() == 3);

            List<MobileNode> nodes = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                MobileNode node = new MobileNode(UUID.randomUUID(), i % 2 == 0 ? t1 : t2, gateways.get(0).udpAddress(),
                        listener, clientConfig);
                node.connect();
                nodes.add(node);
            }
            Await.until("every node connected", 60, () -> connected.get() == NODES);
            long balancingStart = System.currentTimeMillis();

            // Echo traffic while the nodes are being handed over; halfway, the delivery job is rescaled by
            // savepoint from 2 to 1: its routing table must move with it, or echoes go to the wrong gateway.
            ParameterTool narrow = params.mergeWith(ParameterTool.fromArgs(new String[] {"--parallelism", "1"}));
            for (int m = 0; m < MESSAGES; m++) {
                for (MobileNode node : nodes) {
                    node.send("echo", ByteBuffer.allocate(4).putInt(m).array(), null);
                }
                if (m == MESSAGES / 2) {
                    System.out.println("PoA IT: delivery rescaled to 1 from "
                            + jobs.rescaleFromSavepoint(DeliveryJob.NAME, DeliveryJob.fromArgs(narrow)::build));
                }
                Thread.sleep(1_000);
            }
            Await.until("every gateway within 5% of its ideal share", 90, () -> balanced(nodes, rounds));
            long balancedAfterMs = System.currentTimeMillis() - balancingStart;
            Await.until("every echo back", 90, () -> echoes.values().stream().mapToInt(Set::size).sum() == NODES * MESSAGES);
            Thread.sleep(1_000); // room for a late duplicate

            List<BalanceRound> moving = rounds.stream().filter(r -> r.handovers() > 0).toList();
            System.out.printf("PoA IT: balanced after %d ms, %d rounds with handovers, %d handovers, counts %s%n",
                    balancedAfterMs, moving.size(), handovers.values().stream().mapToInt(AtomicInteger::get).sum(),
                    countsByGateway(nodes));
            assertThat(moving).as("rounds that moved nodes").isNotEmpty()
                    .hasSizeLessThanOrEqualTo(2 * NODES / MAX_HANDOVERS_PER_ROUND);
            assertThat(moving).allMatch(r -> r.handovers() <= MAX_HANDOVERS_PER_ROUND);
            assertThat(handovers.values()).as("handovers per node within the cooldown").allMatch(h -> h.get() == 1);
            assertThat(duplicates.get()).isZero();
            assertThat(unsent.get()).isZero();
            assertThat(echoes).hasSize(NODES);
            assertThat(echoes.values()).allMatch(s -> s.size() == MESSAGES);
            assertThat(statistics).as("connection statistics of the loaded gateway's ping windows")
                    .anyMatch(s -> s.gatewayId().equals("gw-1") && s.answered() > 0 && s.medianMs() != null);

            // The PoA manager is rescaled by savepoint from 2 to 1: gateway statistics, liveness timers and
            // the nodes' handover cooldowns must survive it (none is handed over again; gw-3's death is seen).
            System.out.println("PoA IT: PoA manager rescaled to 1 from "
                    + jobs.rescaleFromSavepoint(PoaManagerJob.NAME, PoaManagerJob.fromArgs(narrow)::build));

            // Kill gw-3: it leaves the gateway list and its nodes reconnect to the others.
            Gateway killed = gateways.remove(2);
            long killedAt = System.currentTimeMillis();
            killed.close();
            Await.until("gw-3 off the gateway list", 30, () -> !listed(latestList).contains("gw-3"));
            long delistedAfterMs = System.currentTimeMillis() - killedAt;
            Await.until("every node on gw-1 or gw-2", 60, () -> nodes.stream().allMatch(
                    n -> n.isConnected() && Set.of("gw-1", "gw-2").contains(n.gatewayId())));
            System.out.printf("PoA IT: gw-3 delisted %d ms after it stopped (X = %d periods of %d ms); counts %s%n",
                    delistedAfterMs, LIVENESS_PERIODS, REPORT_PERIOD_MS, countsByGateway(nodes));
            assertThat(listed(latestList)).containsExactlyInAnyOrder("gw-1", "gw-2");
            assertThat(handovers.values()).as("no node handed over twice across the PoA manager's rescale: "
                    + "the cooldowns came along").allMatch(h -> h.get() <= 1);
            nodes.forEach(MobileNode::close);
        } finally {
            for (Gateway gateway : gateways) {
                gateway.close();
            }
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** Every gateway of the latest round holds its ideal count ±5%, counted from the nodes' side. */
    private static boolean balanced(List<MobileNode> nodes, List<BalanceRound> rounds) {
        if (rounds.isEmpty()) {
            return false;
        }
        BalanceRound latest = rounds.get(rounds.size() - 1);
        Map<String, Long> counts = countsByGateway(nodes);
        return latest.gateways().size() == 3 && latest.gateways().stream().allMatch(share ->
                Math.abs(counts.getOrDefault(share.gatewayId(), 0L) - share.ideal()) <= 0.05 * share.ideal());
    }

    private static Map<String, Long> countsByGateway(List<MobileNode> nodes) {
        return nodes.stream().filter(MobileNode::isConnected)
                .collect(Collectors.groupingBy(MobileNode::gatewayId, Collectors.counting()));
    }

    private static List<String> listed(AtomicReference<GatewayList> list) {
        GatewayList latest = list.get();
        return latest == null ? List.of() : latest.gateways().stream().map(GatewayList.Entry::gatewayId).toList();
    }
}
