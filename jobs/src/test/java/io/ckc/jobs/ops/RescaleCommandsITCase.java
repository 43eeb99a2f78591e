package io.ckc.jobs.ops;

import io.ckc.client.ClientConfig;
import io.ckc.client.ClientTransport;
import io.ckc.client.MobileNode;
import io.ckc.client.NodeListener;
import io.ckc.client.ReceivedMessage;
import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.EventLoopGroup;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator commands' own path on real Kafka: the stack submitted with {@code submit} (jar upload and
 * run over the REST API), then {@code rescale delivery 2}, {@code rescale delivery 1} and
 * {@code rescale echo 2} by savepoint and {@code rescale delivery 2 --blue-green} (both delivery jobs running for a
 * while) while a fleet streams numbered messages through the echo application. Every echo arrives exactly once (after
 * the nodes' dedupe), in each node's order, and the application reads each message once.
 */
class RescaleCommandsITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(6).build());

    private static final int NODES = 100;
    private static final long ROUND_MS = 200;

    @Test
    void deliveryAndEchoRescaledByTheCommandsUnderAStreamLoseDuplicateAndReorderNothing(
            @InjectClusterClient RestClusterClient<?> client, @TempDir Path dir) throws Exception {
        String url = client.getWebInterfaceURL();
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-1"));
        List<String> stack = List.of("--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                "--app-topic-prefix", topics.appPrefix(), "--group-selection", "none");
        String jar = Commands.classpathJar(dir.resolve("ckc-jobs.jar")).toString();
        String savepoints = dir.resolve("savepoints").toUri().toString();

        Map<String, AtomicInteger> appReads = new ConcurrentHashMap<>();
        Map<UUID, Set<Integer>> echoes = new ConcurrentHashMap<>();
        Map<UUID, Integer> highest = new ConcurrentHashMap<>();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger reordered = new AtomicInteger();
        AtomicInteger unsent = new AtomicInteger();
        AtomicInteger connected = new AtomicInteger();
        NodeListener listener = new NodeListener() {
            @Override
            public void connected(MobileNode node) {
                connected.incrementAndGet();
            }

            @Override
            public void newMessageReceived(MobileNode node, ReceivedMessage message) {
                int seq = ByteBuffer.wrap(message.payload()).getInt();
                if (!echoes.computeIfAbsent(node.id(), k -> ConcurrentHashMap.newKeySet()).add(seq)) {
                    duplicates.incrementAndGet();
                }
                if (highest.merge(node.id(), seq, Math::max) != seq) {
                    reordered.incrementAndGet(); // an echo behind one of a later message of the same node
                }
            }

            @Override
            public void unsentMessages(MobileNode node, List<Body.Outgoing> messages) {
                unsent.addAndGet(messages.size());
            }
        };
        EventLoopGroup loops = DatagramTransport.current().newGroup(1);
        Gateway gateway = null;
        AtomicBoolean streaming = new AtomicBoolean(true);
        AtomicInteger rounds = new AtomicInteger();
        try (AutoCloseable appReader = KAFKA.followJson(topics.app("echo"), AppMessage.class,
                m -> appReads.computeIfAbsent(m.messageId(), k -> new AtomicInteger()).incrementAndGet());
             ClientTransport transport = ClientTransport.open(loops)) {
            List<String> submit = new ArrayList<>(List.of("--flink", url, "submit", "--jar", jar, "--"));
            submit.addAll(stack);
            Commands.Outcome submitted = Commands.run(submit.toArray(String[]::new));
            assertThat(submitted.code()).as(submitted.err()).isZero();
            assertThat(submitted.out()).containsPattern("(?m)^ckc-delivery [0-9a-f]{32}$")
                    .containsPattern("(?m)^ckc-echo [0-9a-f]{32}$").containsPattern("(?m)^ckc-poa-manager [0-9a-f]{32}$");
            List<String> doubledManager = new ArrayList<>(List.of("--flink", url, "--savepoint-dir", savepoints,
                    "rescale", "poa-manager", "2", "--jar", jar, "--blue-green", "--"));
            doubledManager.addAll(stack);
            Commands.Outcome refused = Commands.run(doubledManager.toArray(String[]::new));
            assertThat(refused.code()).as("two PoA managers side by side are not shown harmless").isNotZero();
            assertThat(refused.err()).contains("poa-manager is not rescaled blue/green");
            assertThat(Commands.run("--flink", url, "list").out()).as("nothing stopped")
                    .containsPattern("(?m)^poa-manager\\s+[0-9a-f]{32}\\s+1\\s+\\d+\\s+RUNNING");

            gateway = Gateway.start(GatewayConfig.forTest("gw-1", KAFKA.bootstrapServers(), topics));
            List<MobileNode> nodes = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                MobileNode node = new MobileNode(UUID.randomUUID(), transport, gateway.udpAddress(), listener,
                        ClientConfig.DEFAULT);
                node.connect();
                nodes.add(node);
            }
            Await.until("every node connected", 60, () -> connected.get() == NODES);
            Thread stream = new Thread(() -> {
                while (streaming.get()) {
                    int seq = rounds.getAndIncrement();
                    nodes.forEach(node -> node.send("echo", ByteBuffer.allocate(4).putInt(seq).array(), null));
                    try {
                        Thread.sleep(ROUND_MS); // the stream's pace, 500 messages a second
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "stream");
            stream.start();
            Await.until("echoes flowing", 60, () -> echoes.size() == NODES && echoes.values().stream().allMatch(s -> s.size() >= 5));

            List<String> results = new ArrayList<>();
            for (String[] op : new String[][] {{"delivery", "2", "savepoint"}, {"delivery", "1", "savepoint"},
                    {"echo", "2", "savepoint"}, {"delivery", "2", "blue-green"}}) {
                int before = rounds.get();
                List<String> rescale = new ArrayList<>(List.of("--flink", url, "--savepoint-dir", savepoints,
                        "--caught-up-wait", "30", "rescale", op[0], op[1], "--jar", jar));
                if (op[2].equals("blue-green")) {
                    rescale.add("--blue-green"); // beside the running job, which goes once its successor caught up
                }
                rescale.add("--");
                rescale.addAll(stack); // as ./ckc passes the stack's flags: the resubmitted job reads the same topics
                Commands.Outcome rescaled = Commands.run(rescale.toArray(String[]::new));
                assertThat(rescaled.code()).as(rescaled.err()).isZero();
                assertThat(rescaled.out()).contains("RESULT op=" + op[2] + " job=" + op[0] + " from=")
                        .contains(" to=" + op[1] + " savepoint_ms=");
                results.add(rescaled.out().strip());
                Await.until("the stream going on after rescaling " + op[0], 30, () -> rounds.get() >= before + 10);
            }
            streaming.set(false);
            stream.join();
            int sent = rounds.get();
            results.forEach(r -> System.out.println("rescale IT: " + r));
            try {
                Await.until("every echo back", 90, () -> echoes.values().stream().mapToInt(Set::size).sum() == NODES * sent);
            } finally {
                System.out.println("rescale IT: missing echoes by message number " + missingBySeq(echoes, sent)
                        + "; unsent " + unsent.get() + ", on the app's topic " + appReads.size());
            }
            Commands.Outcome list = Commands.run("--flink", url, "list");
            System.out.printf("rescale IT: %d messages, %d duplicates at the nodes, %d reordered, %d read twice by the app%n",
                    NODES * sent, duplicates.get(), reordered.get(),
                    appReads.values().stream().filter(n -> n.get() > 1).count());

            Set<Integer> all = Set.copyOf(IntStream.range(0, sent).boxed().toList());
            assertThat(echoes.values()).allMatch(all::equals);
            assertThat(duplicates.get()).as("echoes a node got twice after its own dedupe").isZero();
            assertThat(reordered.get()).as("echoes out of a node's order").isZero();
            assertThat(unsent.get()).isZero();
            assertThat(appReads).as("messages on the app's topic").hasSize(NODES * sent);
            assertThat(appReads.values()).as("the app read each message once").allMatch(n -> n.get() == 1);
            assertThat(list.out()).containsPattern("(?m)^delivery\\s+[0-9a-f]{32}\\s+2\\s+128\\s+RUNNING")
                    .containsPattern("(?m)^echo\\s+[0-9a-f]{32}\\s+2\\s+128\\s+RUNNING");
            nodes.forEach(MobileNode::close);
        } finally {
            streaming.set(false);
            if (gateway != null) {
                gateway.close();
            }
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** For a failure's diagnosis: how many nodes miss the echo of each message number. */
    private static Map<Integer, Long> missingBySeq(Map<UUID, Set<Integer>> echoes, int sent) {
        Map<Integer, Long> missing = new java.util.TreeMap<>();
        for (Set<Integer> got : echoes.values()) {
            IntStream.range(0, sent).filter(seq -> !got.contains(seq)).forEach(seq -> missing.merge(seq, 1L, Long::sum));
        }
        return missing;
    }
}
