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
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.netty.DatagramTransport;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.netty.channel.EventLoopGroup;
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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broker restarts while nodes stream numbered messages through a gateway, the delivery job and
 * the echo job (in-JVM KRaft, MiniCluster): every message's echo comes back to its node, none is
 * handed back as unsent.
 */
class BrokerRestartITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = RunningJobs.miniCluster();

    private static final int NODES = 10;
    private static final int MESSAGES = 60;

    @Test
    void aBrokerRestartUnderLoadLosesNoMessageAndHandsNoneBack() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-1"));
        ParameterTool params = ParameterTool.fromArgs(new String[] {
                "--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                "--app-topic-prefix", topics.appPrefix(), "--parallelism", "2"});
        Map<UUID, Set<Integer>> echoes = new ConcurrentHashMap<>();
        AtomicInteger unsent = new AtomicInteger();
        Map<String, Integer> refusals = new ConcurrentHashMap<>();
        NodeListener listener = new NodeListener() {
            @Override
            public void newMessageReceived(MobileNode node, ReceivedMessage message) {
                echoes.computeIfAbsent(node.id(), k -> ConcurrentHashMap.newKeySet())
                        .add(ByteBuffer.wrap(message.payload()).getInt());
            }

            @Override
            public void unsentMessages(MobileNode node, List<Body.Outgoing> messages) {
                unsent.addAndGet(messages.size());
            }

            @Override
            public void internalException(MobileNode node, Throwable error) {
                refusals.merge(error.getMessage(), 1, Integer::sum);
            }
        };
        EventLoopGroup loops = DatagramTransport.current().newGroup(2);
        ScheduledExecutorService pace = Executors.newSingleThreadScheduledExecutor();
        RunningJobs jobs = new RunningJobs()
                .start(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build)
                .start(EchoJob.NAME, EchoJob.fromArgs(params)::build);
        try (Gateway gateway = Gateway.start(GatewayConfig.forTest("gw-1", KAFKA.bootstrapServers(), topics));
             ClientTransport transport = ClientTransport.open(loops)) {
            List<MobileNode> nodes = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                MobileNode node = new MobileNode(UUID.randomUUID(), transport, gateway.udpAddress(), listener,
                        ClientConfig.DEFAULT);
                node.connect();
                nodes.add(node);
            }
            Await.until("every node connected", 60, () -> nodes.stream().allMatch(MobileNode::isConnected));
            AtomicInteger next = new AtomicInteger();
            pace.scheduleAtFixedRate(() -> {
                int seq = next.getAndIncrement();
                if (seq < MESSAGES) {
                    nodes.forEach(n -> n.send("echo", ByteBuffer.allocate(4).putInt(seq).array(), null));
                }
            }, 0, 100, TimeUnit.MILLISECONDS);
            Await.until("echoes flowing", 60, () -> echoes.size() == NODES
                    && echoes.values().stream().allMatch(s -> s.size() >= 5));

            int before = next.get();
            long stoppedAt = System.nanoTime();
            KAFKA.restartBroker();
            System.out.println("BrokerRestartITCase: broker stopped after message " + before + ", serving again "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt) + " ms later, after message "
                    + Math.min(next.get(), MESSAGES));
            assertThat(before).as("the restart begins while the nodes still send").isLessThan(MESSAGES / 2);

            Set<Integer> all = IntStream.range(0, MESSAGES).boxed().collect(Collectors.toSet());
            try {
                Await.until("every echo back", 120, () -> next.get() >= MESSAGES
                        && echoes.values().stream().allMatch(s -> s.size() == MESSAGES));
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; handed back as unsent: " + unsent.get() + "; refusals: " + refusals + "; missing: "
                        + nodes.stream().map(n -> missing(all, echoes.getOrDefault(n.id(), Set.of()))).toList(), e);
            }
            assertThat(echoes.values()).hasSize(NODES).allMatch(all::equals);
            assertThat(unsent.get()).as("messages handed back to the nodes' applications").isZero();
            nodes.forEach(MobileNode::close);
        } finally {
            pace.shutdownNow();
            jobs.close();
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static Set<Integer> missing(Set<Integer> all, Set<Integer> echoed) {
        Set<Integer> missing = new java.util.TreeSet<>(all);
        missing.removeAll(echoed);
        return missing;
    }
}
