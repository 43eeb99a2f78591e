package io.ckc.jobs;

import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.jobs.echo.EchoJob;
import io.ckc.protocol.kafka.CoreMessenger;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's MQTT commands with Debian's {@code mosquitto-clients} (2.0), as a user types them, against a gateway
 * with the delivery job and the echo application: {@code mosquitto_rr} gets its answer, {@code mosquitto_pub}'s
 * message expiry becomes the record's TTL, {@code mosquitto_sub} reads a unicast with the seconds it has left.
 * Skipped, with the reason, where the clients are not installed ({@code apt-get install mosquitto-clients}).
 */
class MosquittoClientsITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = RunningJobs.miniCluster();

    @BeforeAll
    static void clientsInstalled() {
        for (String client : List.of("mosquitto_rr", "mosquitto_pub", "mosquitto_sub")) {
            Assumptions.assumeTrue(installed(client), client + " is not installed: apt-get install mosquitto-clients");
        }
    }

    private static boolean installed(String client) {
        try {
            Process probe = new ProcessBuilder(client, "--help").redirectErrorStream(true).start();
            probe.getInputStream().readAllBytes();
            return probe.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @Test
    void mosquittoRrGetsItsAnswerPubGivesItsExpiryAndSubReadsAUnicastWithItsTimeLeft() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-1"));
        String[] common = {"--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                "--app-topic-prefix", topics.appPrefix(), "--parallelism", "1"};
        List<AppMessage> appMessages = new CopyOnWriteArrayList<>();
        List<MnEvent> events = new CopyOnWriteArrayList<>();
        try (RunningJobs jobs = new RunningJobs()
                .start(DeliveryJob.NAME, DeliveryJob.fromArgs(ParameterTool.fromArgs(common))::build)
                .start(EchoJob.NAME, EchoJob.fromArgs(ParameterTool.fromArgs(common))::build);
             AutoCloseable followApp = KAFKA.followJson(topics.app("echo"), AppMessage.class, appMessages::add);
             AutoCloseable followEvents = KAFKA.followJson(topics.mnEvents(), MnEvent.class, events::add);
             CoreMessenger app = CoreMessenger.connect(KAFKA.bootstrapServers(), topics, "clients-it");
             Gateway gateway = Gateway.start(GatewayConfig.forTest("gw-1", KAFKA.bootstrapServers(), topics)
                     .toBuilder().mqttPort(0).build())) {
            String port = Integer.toString(gateway.mqttAddress().orElseThrow().getPort());

            // as the README shows it
            Output answer = run("mosquitto_rr", "-V", "mqttv5", "-p", port, "-i", "n1", "-t", "app/echo", "-e",
                    "ckc/n1/inbox", "-m", "hi", "-W", "60");
            assertThat(answer.code).as(answer.text).isZero();
            assertThat(answer.text.strip()).isEqualTo("hi");

            Output published = run("mosquitto_pub", "-V", "mqttv5", "-p", port, "-i", "n2", "-t", "app/echo", "-q",
                    "1", "-m", "cool down", "-D", "publish", "message-expiry-interval", "90");
            assertThat(published.code).as(published.text).isZero();
            Await.until("n2's message on app.echo", 30, () -> appMessages.stream()
                    .anyMatch(m -> "cool down".equals(new String(m.payload(), StandardCharsets.UTF_8))));
            AppMessage withExpiry = appMessages.stream()
                    .filter(m -> "cool down".equals(new String(m.payload(), StandardCharsets.UTF_8))).findFirst()
                    .orElseThrow();
            assertThat(withExpiry.ttlMs()).isEqualTo(90_000L);

            // mosquitto_sub waits for one message; the application sends it once n3's session is open
            String n3 = UUID.nameUUIDFromBytes("ckc-mqtt:n3".getBytes(StandardCharsets.UTF_8)).toString();
            Process sub = new ProcessBuilder("mosquitto_sub", "-V", "mqttv5", "-p", port, "-i", "n3", "-t",
                    "ckc/n3/inbox", "-C", "1", "-W", "60", "-F", "%p %E").redirectErrorStream(true).start();
            Await.until("n3 connected", 30, () -> events.stream()
                    .anyMatch(e -> e.mnId().equals(n3) && e.type() == MnEvent.Type.CONNECTED));
            app.send(new Unicast(UUID.randomUUID().toString(), "clients-it", n3, "open vent".getBytes(), 60_000L,
                    System.currentTimeMillis(), false));
            String line = new String(sub.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertThat(sub.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(line).startsWith("open vent ");
            assertThat(Integer.parseInt(line.substring("open vent ".length()))).isBetween(50, 60);
        }
    }

    private record Output(int code, String text) {
    }

    private static Output run(String... command) throws Exception {
        Process process = new ProcessBuilder(new ArrayList<>(List.of(command))).redirectErrorStream(true).start();
        String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return new Output(-1, text + " (timed out)");
        }
        return new Output(process.exitValue(), text);
    }
}
