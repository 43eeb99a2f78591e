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
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Unicast;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example application outside Java ({@code examples/python/shout.py}) on real parts: nodes send on
 * a channel of their own, the Python process answers each message on {@code ckc.to-mn}, and the
 * delivery job and the gateway bring every answer back to its node. Skipped, with the reason, where
 * Python's Kafka client is not installed.
 */
class PythonExampleITCase {

    private static final Path SCRIPT = Path.of("..", "examples", "python", "shout.py");

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2)
                    .build());

    @Test
    void thePythonApplicationAnswersEveryMessageOnItsChannelOnceInOrderAsTheGuideAsks() throws Exception {
        String python = pythonWithKafkaClient().orElse(null);
        Assumptions.assumeTrue(python != null,
                "no python3 with the confluent-kafka client (Debian: apt-get install python3-confluent-kafka)");
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("shout"), List.of("gw-py"));
        RunningJobs jobs = new RunningJobs().start(DeliveryJob.NAME, DeliveryJob.fromArgs(ParameterTool.fromArgs(
                new String[] {"--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                        "--app-topic-prefix", topics.appPrefix()}))::build);

        int nodeCount = 20;
        int messages = 5;
        Map<UUID, List<String>> answers = new ConcurrentHashMap<>();
        List<UUID> answerIds = new CopyOnWriteArrayList<>();
        AtomicInteger connected = new AtomicInteger();
        AtomicInteger unsent = new AtomicInteger();
        NodeListener listener = new NodeListener() {
            @Override
            public void connected(MobileNode node) {
                connected.incrementAndGet();
            }

            @Override
            public void newMessageReceived(MobileNode node, ReceivedMessage message) {
                answers.computeIfAbsent(node.id(), k -> new CopyOnWriteArrayList<>())
                        .add(new String(message.payload(), StandardCharsets.UTF_8));
                answerIds.add(message.messageId());
            }

            @Override
            public void unsentMessages(MobileNode node, List<Body.Outgoing> lost) {
                unsent.addAndGet(lost.size());
            }
        };
        // A device's request, written twice as a gateway writes it again when a node resends: answered once, on the
        // reply topic it named, with its correlation data, under the id the guide derives from the request's.
        String device = UUID.randomUUID().toString();
        String requestId = UUID.randomUUID().toString();
        byte[] correlation = {0, 1, 2, (byte) 0xFF};
        AppMessage request = new AppMessage(requestId, device, "gw-py", "shout", "ping".getBytes(StandardCharsets.UTF_8),
                null, System.currentTimeMillis(), null, "devices/" + device + "/answers", correlation);
        try (KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            for (int i = 0; i < 2; i++) {
                producer.send(new ProducerRecord<>(topics.app("shout"), device, new RecordFormat().write(request))).get();
            }
        }
        int expected = nodeCount * messages + 1;
        Path output = Files.createTempFile("shout", ".out");
        Process app = new ProcessBuilder(python, SCRIPT.toString(), "--bootstrap", KAFKA.bootstrapServers(),
                "--channel", "shout", "--topic-prefix", topics.prefix(), "--app-topic-prefix", topics.appPrefix(),
                "--group", "shout-" + UUID.randomUUID(), "--max-messages", String.valueOf(expected))
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try (Gateway gateway = Gateway.start(GatewayConfig.forTest("gw-py", KAFKA.bootstrapServers(), topics));
             ClientTransport transport = ClientTransport.open()) {
            List<MobileNode> nodes = new ArrayList<>();
            for (int i = 0; i < nodeCount; i++) {
                MobileNode node = new MobileNode(UUID.randomUUID(), transport, gateway.udpAddress(), listener,
                        ClientConfig.DEFAULT);
                node.connect();
                nodes.add(node);
            }
            Await.until("every node connected", 60, () -> connected.get() == nodeCount);
            for (int m = 0; m < messages; m++) {
                for (MobileNode node : nodes) {
                    node.send("shout", ("hello " + m).getBytes(StandardCharsets.UTF_8), null);
                }
            }
            // The script stops after answering every message; each answer then still has to reach its node.
            assertThat(app.waitFor(120, TimeUnit.SECONDS)).as("the Python application answered everything").isTrue();
            String printed = Files.readString(output);
            System.out.print(printed);
            assertThat(app.exitValue()).isZero();
            assertThat(printed).as("the repeated request dropped, counted").contains("answered=" + expected + " repeats=1 ");
            List<Unicast> toDevice = KAFKA.readJson(topics.toMn(), expected, Duration.ofSeconds(30), Unicast.class)
                    .stream().filter(u -> u.recipient().equals(device)).toList();
            assertThat(toDevice).as("answers to the device").hasSize(1);
            Unicast reply = toDevice.get(0);
            assertThat(reply.messageId()).as("UUID.nameUUIDFromBytes(\"shout:\" + the request's id)")
                    .isEqualTo(UUID.nameUUIDFromBytes(("shout:" + requestId).getBytes(StandardCharsets.UTF_8)).toString());
            assertThat(reply.sender()).isEqualTo("shout");
            assertThat(reply.replyTo()).isEqualTo("devices/" + device + "/answers");
            assertThat(reply.correlation()).isEqualTo(correlation);
            assertThat(new String(reply.payload(), StandardCharsets.UTF_8)).isEqualTo("PING");
            Await.until("every answer at its node", 60,
                    () -> answers.values().stream().mapToInt(List::size).sum() >= nodeCount * messages);
            for (MobileNode node : nodes) {
                assertThat(answers.get(node.id())).as("answers to %s, once each and in order", node.id())
                        .containsExactly("HELLO 0", "HELLO 1", "HELLO 2", "HELLO 3", "HELLO 4");
            }
            assertThat(answerIds).doesNotHaveDuplicates();
            assertThat(unsent.get()).isZero();
            nodes.forEach(MobileNode::close);
        } finally {
            app.destroy();
            jobs.close();
        }
    }

    /** The first of python3 on the PATH and Debian's own that can import the confluent-kafka client. */
    private static Optional<String> pythonWithKafkaClient() throws InterruptedException {
        for (String candidate : List.of("python3", "/usr/bin/python3")) {
            try {
                Process probe = new ProcessBuilder(candidate, "-c", "import confluent_kafka")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0 && Files.exists(SCRIPT)) {
                    return Optional.of(candidate);
                }
            } catch (IOException notThere) {
                // try the next one
            }
        }
        return Optional.empty();
    }
}
