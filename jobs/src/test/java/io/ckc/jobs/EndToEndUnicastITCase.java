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
import io.ckc.protocol.kafka.Topics;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.EventLoopGroup;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole path on real parts: MN → gateway → Kafka → echo job → Kafka → delivery job → the
 * MN's gateway → MN, with an in-JVM KRaft broker and a Flink MiniCluster.
 */
class EndToEndUnicastITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = RunningJobs.miniCluster();

    @Test
    void everyMessageOf200NodesOnTwoGatewaysRoundTripsExactlyOnceThroughTheEchoAppAtParallelismTwo()
            throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-a", "gw-b"));
        ParameterTool params = ParameterTool.fromArgs(new String[] {
                "--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                "--app-topic-prefix", topics.appPrefix(), "--parallelism", "2"});
        RunningJobs jobs = new RunningJobs()
                .start(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build)
                .start(EchoJob.NAME, EchoJob.fromArgs(params)::build);
        everyMessageRoundTripsOnceInOrder(topics, jobs);
        assertThat(KAFKA.read(topics.toMn(), 1, Duration.ofSeconds(3))).as("the echo's answers on ckc.to-mn")
                .isNotEmpty();
    }

    /** The same nodes and messages, answered by the echo inside the delivery job: no echo job, no ckc.to-mn. */
    @Test
    void everyMessageRoundTripsExactlyOnceThroughTheEchoInsideTheDeliveryJob() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-a", "gw-b"));
        ParameterTool params = ParameterTool.fromArgs(new String[] {
                "--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                "--app-topic-prefix", topics.appPrefix(), "--parallelism", "2", "--echo-channels", "echo"});
        RunningJobs jobs = new RunningJobs().start(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build);
        everyMessageRoundTripsOnceInOrder(topics, jobs);
        assertThat(KAFKA.read(topics.toMn(), 1, Duration.ofSeconds(3))).as("nothing crossed ckc.to-mn").isEmpty();
    }

    private static void everyMessageRoundTripsOnceInOrder(Topics topics, RunningJobs jobs) throws Exception {

        int nodeCount = 200;
        int messages = 5;
        Map<UUID, List<Integer>> echoes = new ConcurrentHashMap<>();
        AtomicInteger unsent = new AtomicInteger();
        CountDownLatch connected = new CountDownLatch(nodeCount);
        CountDownLatch allEchoes = new CountDownLatch(nodeCount * messages);
        NodeListener listener = new NodeListener() {
            @Override
            public void connected(MobileNode node) {
                connected.countDown();
            }

            @Override
            public void newMessageReceived(MobileNode node, ReceivedMessage message) {
                echoes.computeIfAbsent(node.id(), k -> new ArrayList<>())
                        .add(ByteBuffer.wrap(message.payload()).getInt());
                allEchoes.countDown();
            }

            @Override
            public void unsentMessages(MobileNode node, List<io.ckc.protocol.frame.Body.Outgoing> lost) {
                unsent.addAndGet(lost.size());
            }
        };
        EventLoopGroup loops = DatagramTransport.current().newGroup(2);
        try (Gateway gwA = Gateway.start(GatewayConfig.forTest("gw-a", KAFKA.bootstrapServers(), topics));
             Gateway gwB = Gateway.start(GatewayConfig.forTest("gw-b", KAFKA.bootstrapServers(), topics));
             ClientTransport t1 = ClientTransport.open(loops);
             ClientTransport t2 = ClientTransport.open(loops)) {
            List<MobileNode> nodes = new ArrayList<>();
            for (int i = 0; i < nodeCount; i++) {
                MobileNode node = new MobileNode(UUID.randomUUID(), i % 2 == 0 ? t1 : t2,
                        (i % 2 == 0 ? gwA : gwB).udpAddress(), listener, ClientConfig.DEFAULT);
                node.connect();
                nodes.add(node);
            }
            assertThat(connected.await(60, TimeUnit.SECONDS)).isTrue();
            for (int m = 0; m < messages; m++) {
                for (MobileNode node : nodes) {
                    node.send("echo", ByteBuffer.allocate(4).putInt(m).array(), null);
                }
            }
            if (!allEchoes.await(90, TimeUnit.SECONDS)) {
                System.out.println("DIAG jobs " + jobs.status());
                for (String topic : List.of(topics.app("echo"), topics.toMn(), topics.mnEvents(), topics.gateway("gw-a"),
                        topics.deadLetter(), topics.unsent())) {
                    System.out.println("DIAG " + topic + " " + KAFKA.read(topic, 100_000, java.time.Duration.ofSeconds(3)).size());
                }
            }
            assertThat(allEchoes.await(1, TimeUnit.SECONDS))
                    .as("echoes received: %d of %d", nodeCount * messages - allEchoes.getCount(), nodeCount * messages)
                    .isTrue();
            Thread.sleep(1_000); // room for any duplicate that would arrive late
            assertThat(echoes).hasSize(nodeCount);
            for (MobileNode node : nodes) {
                assertThat(echoes.get(node.id())).as("echoes of %s, in order, once each", node.id())
                        .containsExactly(0, 1, 2, 3, 4);
            }
            assertThat(unsent.get()).isZero();
            nodes.forEach(MobileNode::close);
        } finally {
            jobs.close();
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
