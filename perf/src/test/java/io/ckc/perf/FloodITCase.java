package io.ckc.perf;

import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
import io.ckc.client.NodeCredentials;
import io.ckc.gateway.core.RateLimits;
import io.ckc.gateway.core.SecurityOptions;
import io.ckc.protocol.auth.CredentialStore;
import io.ckc.protocol.auth.Grants;
import io.ckc.protocol.auth.NodeKeys;
import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.jobs.echo.EchoJob;
import io.ckc.protocol.kafka.Topics;
import io.ckc.testing.EmbeddedKafkaExtension;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code perf flood} on real parts (an in-JVM KRaft broker, the delivery and echo jobs on a MiniCluster, one gateway
 * with its limits at their defaults but for a lower message limit): honest nodes lose no message while one address
 * floods connects (plain, or half-open DTLS handshakes where the gateway authenticates) and one node floods messages,
 * new honest nodes still connect, and the gateway counts both floods' refusals. The honest nodes' p99
 * beside the quiet phase's is printed and judged by the perf run ({@code ./ckc perf flood}), not here: in a JVM that
 * also runs the broker, the jobs and the gateway on two cores, a flood's CPU lands on every part at once.
 */
class FloodITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2)
                    .build());

    @TempDir
    Path dir;

    @Test
    void honestNodesLoseNothingWhileOneAddressAndOneNodeFloodAndBothFloodsAreRefused() throws Exception {
        String result = flood(null);
        assertThat(value(result, "address_refusals")).as("the connect flood is refused at its source").isGreaterThan(0);
        assertThat(value(result, "rate_limited")).as("the message flood is refused at its source").isGreaterThan(0);
    }

    /**
     * Where the gateway authenticates: half-open handshakes from 200 ports of one address take no more than that
     * address's handshake places, so every new honest node still gets its handshake and connects; the flooding node,
     * with its key, is refused beyond its message limit.
     */
    @Test
    void anAuthenticatingGatewayStillAdmitsNewNodesWhileOneAddressLeavesHandshakesHalfOpen() throws Exception {
        byte[] fleetKey = NodeKeys.newSecret();
        Path store = dir.resolve("credentials.json");
        CredentialStore.putFleet(store, "sim", fleetKey, Grants.DEFAULT);
        try (AutoCloseable keys = FleetCredentials.use(NodeCredentials.fleet("sim", fleetKey))) {
            String result = flood(new SecurityOptions(store.toString(), 8, 64, 60_000, null, null, null));
            assertThat(result).contains("authenticated=true");
            assertThat(value(result, "address_refusals")).as("the half-open handshakes beyond the address's places "
                    + "are refused").isGreaterThan(0);
            assertThat(value(result, "rate_limited")).as("the sealed message flood is refused at its source")
                    .isGreaterThan(0);
        }
    }

    /** Runs {@code perf flood} on a gateway with these security options (null: insecure) and returns its RESULT. */
    private String flood(SecurityOptions security) throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-1"));
        ParameterTool params = ParameterTool.fromArgs(new String[] {"--bootstrap", KAFKA.bootstrapServers(),
                "--topic-prefix", topics.prefix(), "--app-topic-prefix", topics.appPrefix(), "--parallelism", "1"});
        List<JobClient> jobs = new ArrayList<>();
        GatewayConfig defaults = GatewayConfig.forTest("gw-1", KAFKA.bootstrapServers(), topics);
        RateLimits limits = defaults.core().limits();
        GatewayConfig.Builder config = defaults.toBuilder().metricsPort(0).limits(new RateLimits(100,
                limits.nodeBytesPerSecond(), limits.addressSessionsPerSecond(), limits.addressSessionsBurst(),
                limits.flapSessions(), limits.flapWindowMs(), limits.flapPenaltyMs()));
        if (security != null) {
            config.security(security);
        }
        Gateway gateway = null;
        try {
            jobs.add(QuickScenarioITCase.submit(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build));
            jobs.add(QuickScenarioITCase.submit(EchoJob.NAME, EchoJob.fromArgs(params)::build));
            gateway = Gateway.start(config.build());

            FloodCommand command = new FloodCommand();
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            command.out = new PrintStream(printed, true, StandardCharsets.UTF_8);
            new CommandLine(command).parseArgs("--gateways", "127.0.0.1:" + gateway.udpAddress().getPort(),
                    "--metrics", "http://127.0.0.1:" + gateway.metricsPort() + "/metrics",
                    "--bootstrap", KAFKA.bootstrapServers(), "--nodes", "40", "--rate", "40", "--phase-seconds", "6",
                    "--connect-flood-rate", "3000", "--message-flood-rate", "1000", "--max-p99-ratio", "1000000",
                    "--io-threads", "1", "--drain-seconds", "20");
            command.call();
            String output = printed.toString(StandardCharsets.UTF_8);

            Matcher result = Pattern.compile("RESULT scenario=flood .*").matcher(output);
            assertThat(result.find()).as(output).isTrue();
            assertThat(value(result.group(), "lost")).as(output).isZero();
            assertThat(value(result.group(), "sent")).as(output).isGreaterThan(200);
            assertThat(value(result.group(), "connects_failed")).as("every new honest node connected: " + output)
                    .isZero();
            return result.group();
        } finally {
            if (gateway != null) {
                gateway.close();
            }
            for (JobClient job : jobs) {
                job.cancel().get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static double value(String result, String key) {
        Matcher m = Pattern.compile(" " + key + "=([0-9.]+)").matcher(result);
        assertThat(m.find()).as(key + " in " + result).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
