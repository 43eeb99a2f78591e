package io.ckc.jobs;

import io.ckc.client.ClientConfig;
import io.ckc.client.ClientTransport;
import io.ckc.client.MobileNode;
import io.ckc.client.NodeListener;
import io.ckc.client.ReceivedMessage;
import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.jobs.groups.GroupDefinerJob;
import io.ckc.jobs.sql.SqlRunnerJob;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.kafka.CoreMessenger;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.ckc.udfs.groups.GridCellSelection;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.EventLoopGroup;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Paper section 7 on real parts: a UDF definer (grid cells) and a SQL definer (low battery) side by
 * side over the context of 40 nodes on two gateways; groupcasts from an application and from a node
 * reach exactly the members (none missing, none extra, each once), a node in groups of both
 * definers gets both (the paper's Figure 3), a node that moved stops getting its old cell's, and a
 * broadcast reaches every connected node on every gateway once.
 */
class GroupsITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(6)
                    .build());

    private static final int NODES = 40;
    private static final Context CELL_A = new Context(-22.905, -43.175, 0.9, Map.of());
    private static final Context CELL_B = new Context(-22.995, -43.365, 0.9, Map.of());

    /** Message id -> node -> how many times it arrived. */
    private final Map<String, Map<UUID, AtomicInteger>> arrivals = new ConcurrentHashMap<>();

    @Test
    void groupcastsReachExactlyTheMembersOfUdfAndSqlGroupsAcrossRescalesAndBroadcastsReachEveryNode() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("status"), List.of("gw-a", "gw-b"));
        String[] common = {"--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                "--app-topic-prefix", topics.appPrefix(), "--parallelism", "2", "--groupcast-chunk", "7"};
        GroupDefinerJob grid = GroupDefinerJob.fromArgs(params(common, "--selection", "grid-cell"));
        SqlRunnerJob battery = SqlRunnerJob.fromArgs(params(common, "--sql", "../sql/battery.sql", "--tables",
                "../sql/tables.sql"));
        List<GroupAdvertisement> advertisements = new CopyOnWriteArrayList<>();
        EventLoopGroup loops = DatagramTransport.current().newGroup(2);
        try (RunningJobs jobs = new RunningJobs()
                .start(DeliveryJob.NAME, DeliveryJob.fromArgs(params(common))::build)
                .start(grid.name(), grid::build)
                .start(battery.name(), battery::build);
             AutoCloseable follow = KAFKA.followJson(topics.groups(), GroupAdvertisement.class, advertisements::add);
             CoreMessenger app = CoreMessenger.connect(KAFKA.bootstrapServers(), topics, "it-app");
             Gateway gwA = Gateway.start(GatewayConfig.forTest("gw-a", KAFKA.bootstrapServers(), topics));
             Gateway gwB = Gateway.start(GatewayConfig.forTest("gw-b", KAFKA.bootstrapServers(), topics));
             ClientTransport transport = ClientTransport.open(loops)) {
            NodeListener listener = new NodeListener() {
                @Override
                public void newMessageReceived(MobileNode node, ReceivedMessage message) {
                    arrivals.computeIfAbsent(message.messageId().toString(), k -> new ConcurrentHashMap<>())
                            .computeIfAbsent(node.id(), k -> new AtomicInteger()).incrementAndGet();
                }
            };
            // Nodes 0-19 in cell A, 20-39 in cell B; the even ones have a low battery. Half on each gateway.
            List<MobileNode> nodes = new ArrayList<>();
            Map<UUID, Context> contexts = new HashMap<>();
            for (int i = 0; i < NODES; i++) {
                MobileNode node = new MobileNode(UUID.randomUUID(), transport, (i % 2 == 0 ? gwA : gwB).udpAddress(),
                        listener, ClientConfig.DEFAULT);
                Context place = i < 20 ? CELL_A : CELL_B;
                contexts.put(node.id(), new Context(place.latitude(), place.longitude(), i % 2 == 0 ? 0.1 : 0.9, Map.of()));
                node.connect();
                nodes.add(node);
            }
            Await.until("every node connected", 60, () -> nodes.stream().allMatch(MobileNode::isConnected));
            nodes.forEach(n -> n.send("status", new byte[] {1}, contexts.get(n.id())));
            Await.until("both definers advertised every node", 90, () ->
                    advertisements.stream().filter(a -> a.definerId().equals("grid-cell")).count() >= NODES
                            && advertisements.stream().filter(a -> a.definerId().equals("sql-battery")).count() >= NODES);

            String cellA = "grid-cell/" + cellOf(CELL_A);
            String cellB = "grid-cell/" + cellOf(CELL_B);
            String lowBattery = "sql-battery/low";
            Set<UUID> inCellA = ids(nodes, IntStream.range(0, 20));
            Set<UUID> inCellB = ids(nodes, IntStream.range(20, 40));
            Set<UUID> low = ids(nodes, IntStream.range(0, 40).filter(i -> i % 2 == 0));
            awaitIndexed(app, cellA, inCellA);
            awaitIndexed(app, cellB, inCellB);
            awaitIndexed(app, lowBattery, low);

            String toCellA = app.groupcast(cellA, new byte[] {2}, Duration.ofMinutes(5));
            String fromNode = nodes.get(25).sendToGroup(lowBattery, new byte[] {3}, null).toString();
            Await.until("the groupcasts reached their members", 30, () ->
                    receivers(toCellA).size() >= inCellA.size() && receivers(fromNode).size() >= low.size());
            Thread.sleep(1_500); // room for an extra or repeated delivery
            assertThat(receivers(toCellA)).as("exactly the members of " + cellA).isEqualTo(inCellA);
            assertThat(receivers(fromNode)).as("exactly the members of " + lowBattery).isEqualTo(low);
            assertThat(arrivals.get(toCellA).values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
            assertThat(arrivals.get(fromNode).values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
            UUID inBoth = nodes.get(0).id(); // cell A and low battery: groups of two definers
            assertThat(arrivals.get(toCellA)).containsKey(inBoth);
            assertThat(arrivals.get(fromNode)).containsKey(inBoth);

            // The delivery job (the membership index) and the grid definer (each node's last groups) are
            // rescaled by savepoint from 2 to 1: what follows only works if both states came along.
            GroupDefinerJob narrowGrid = GroupDefinerJob.fromArgs(params(common, "--selection", "grid-cell",
                    "--parallelism", "1"));
            System.out.println("Groups IT: rescaled delivery from "
                    + jobs.rescaleFromSavepoint(DeliveryJob.NAME, DeliveryJob.fromArgs(params(common, "--parallelism", "1"))::build)
                    + " and the grid definer from " + jobs.rescaleFromSavepoint(grid.name(), narrowGrid::build));

            // Node 1 moves to cell B: it joins B and stops getting A's groupcasts.
            MobileNode mover = nodes.get(1);
            mover.send("status", new byte[] {1}, CELL_B);
            Set<UUID> nowInB = new java.util.HashSet<>(inCellB);
            nowInB.add(mover.id());
            awaitIndexed(app, cellB, nowInB);
            Thread.sleep(1_000); // its leave of cell A is indexed apart from its join of B
            String afterMove = app.groupcast(cellA, new byte[] {4}, null);
            Set<UUID> nowInA = new java.util.HashSet<>(inCellA);
            nowInA.remove(mover.id());
            Await.until("the groupcast after the move", 30, () -> receivers(afterMove).size() >= nowInA.size());
            Thread.sleep(1_500);
            assertThat(receivers(afterMove)).isEqualTo(nowInA);

            String broadcast = app.broadcast(new byte[] {5});
            Set<UUID> everyone = ids(nodes, IntStream.range(0, NODES));
            Await.until("the broadcast reached every node", 30, () -> receivers(broadcast).size() >= NODES);
            Thread.sleep(1_000);
            assertThat(receivers(broadcast)).isEqualTo(everyone);
            assertThat(arrivals.get(broadcast).values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
            nodes.forEach(MobileNode::close);
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * The delivery job reads memberships and groupcasts from different topics: a groupcast sent
     * before its group is indexed would miss members. Probe groupcasts go out until every expected
     * member got one.
     */
    private void awaitIndexed(CoreMessenger app, String group, Set<UUID> members) throws InterruptedException {
        List<String> probes = new CopyOnWriteArrayList<>();
        Await.until(group + " indexed with " + members.size() + " members", 60, () -> {
            if (probes.stream().anyMatch(p -> receivers(p).containsAll(members))) {
                return true;
            }
            probes.add(app.groupcast(group, new byte[] {0}, Duration.ofSeconds(30)));
            try {
                Thread.sleep(400);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return false;
        });
    }

    private Set<UUID> receivers(String messageId) {
        return arrivals.getOrDefault(messageId, Map.of()).keySet();
    }

    private static Set<UUID> ids(List<MobileNode> nodes, IntStream indexes) {
        return indexes.mapToObj(i -> nodes.get(i).id()).collect(Collectors.toSet());
    }

    private static String cellOf(Context place) {
        return new GridCellSelection().groupsOf("any", place.latitude(), place.longitude(), null, Map.of())
                .iterator().next();
    }

    private static ParameterTool params(String[] common, String... more) {
        String[] all = java.util.Arrays.copyOf(common, common.length + more.length);
        System.arraycopy(more, 0, all, common.length, more.length);
        return ParameterTool.fromArgs(all);
    }
}
