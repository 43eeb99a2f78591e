package io.ckc.perf;

import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
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
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo's echo round trip on real parts (an in-JVM KRaft broker, a MiniCluster running the delivery and echo
 * jobs, one gateway) by simulated MQTT 5 devices, by UDP nodes, and by half of each at once: every
 * message of each comes back once; and a small {@code perf mqtt} on the same parts (beside Mosquitto where it is
 * installed) prints every path's figures and the idle connections' memory.
 */
class MqttDemoITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2)
                    .build());

    @Test
    void mqttDevicesAndUdpNodesGetEveryEchoOnce() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-1"));
        ParameterTool params = ParameterTool.fromArgs(new String[] {"--bootstrap", KAFKA.bootstrapServers(),
                "--topic-prefix", topics.prefix(), "--app-topic-prefix", topics.appPrefix(), "--parallelism", "1"});
        JobClient delivery = QuickScenarioITCase.submit(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build);
        JobClient echo = QuickScenarioITCase.submit(EchoJob.NAME, EchoJob.fromArgs(params)::build);
        GatewayConfig config = GatewayConfig.forTest("gw-1", KAFKA.bootstrapServers(), topics).toBuilder()
                .mqttPort(0).build();
        try (Gateway gateway = Gateway.start(config)) {
            String udp = "127.0.0.1:" + gateway.udpAddress().getPort();
            String mqtt = "127.0.0.1:" + gateway.mqttAddress().orElseThrow().getPort();
            for (String protocol : List.of("mqtt", "udp", "mixed")) {
                ByteArrayOutputStream printed = new ByteArrayOutputStream();
                DemoCommand demo = new DemoCommand();
                new CommandLine(demo).parseArgs("--gateways", udp, "--mqtt-gateways", mqtt, "--protocol", protocol,
                        "--nodes", "50", "--messages", "4", "--rate", "120", "--io-threads", "1");
                demo.out = new PrintStream(printed, true, StandardCharsets.UTF_8);
                int exit = demo.call();
                String output = printed.toString(StandardCharsets.UTF_8);
                assertThat(exit).as(output).isZero();
                assertThat(output).contains("RESULT nodes=50 gateways=1 sent=200 delivered=200 duplicates=0 te=100.00")
                        .contains("protocol=" + protocol);
            }

            // a scenario's run with half UDP nodes and half MQTT devices at once (scenario1 --protocol mixed)
            Path runResults = Files.createTempDirectory("perf-run-mixed");
            ByteArrayOutputStream runPrinted = new ByteArrayOutputStream();
            RunCommand run = new RunCommand();
            new CommandLine(run).parseArgs("--config", "1", "--path", "mixed", "--gateways", udp, "--mqtt-gateways", mqtt,
                    "--nodes", "40", "--messages", "3", "--rate", "120", "--warm-up-seconds", "0", "--io-threads", "1",
                    "--results", runResults.toString());
            run.out = new PrintStream(runPrinted, true, StandardCharsets.UTF_8);
            Results.RunRow row = run.run();
            assertThat(row.sent()).as(runPrinted.toString(StandardCharsets.UTF_8)).isEqualTo(120);
            assertThat(row.delivered()).isEqualTo(120);
            assertThat(row.duplicates()).isZero();

            // perf mqtt, small: MQTT devices on this gateway, and Mosquitto beside it where it is installed
            boolean mosquitto = Mosquitto.unavailable("mosquitto") == null;
            Path results = Files.createTempDirectory("perf-mqtt");
            Path pids = Files.createDirectories(results.resolve("pids"));
            Files.writeString(pids.resolve("gateway-1.pid"), Long.toString(ProcessHandle.current().pid()));
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            MqttCommand command = new MqttCommand();
            new CommandLine(command).parseArgs("--gateways", udp, "--mqtt-gateways", mqtt, "--paths",
                    mosquitto ? "mqtt,mosquitto" : "mqtt", "--nodes", "20", "--rate", "100", "--seconds", "2",
                    "--path-warmup-seconds", "1", "--max-steps", "1", "--start", "200", "--warmup-seconds", "1",
                    "--samples", "2", "--idle", "40", "--io-threads", "1", "--results", results.toString(),
                    "--pids-dir", pids.toString());
            command.out = new PrintStream(printed, true, StandardCharsets.UTF_8);
            assertThat(command.call()).isZero();
            String output = printed.toString(StandardCharsets.UTF_8);
            assertThat(output).containsPattern("RESULT path=mqtt phase=fixed offered_per_s=100 nodes=20 sent=(\\d+) "
                            + "delivered=\\1 ")
                    .contains("RESULT path=mqtt phase=saturation")
                    // the gateway here shares its JVM with the MiniCluster and the test: its heap per connection is
                    // read, but is noise at 40 connections
                    .containsPattern("RESULT phase=idle server=ckc-gateway connections=40 of=40 .* "
                            + "heap_per_connection_kb=-?\\d");
            assertThat(Files.readAllLines(results.resolve(MqttCommand.FIXED_CSV))).anyMatch(l -> l.startsWith("mqtt,"));
            if (mosquitto) {
                assertThat(output).containsPattern("RESULT path=mosquitto phase=fixed offered_per_s=100 nodes=20 "
                                + "sent=(\\d+) delivered=\\1 .*cpu_mosquitto_pct=")
                        .contains("RESULT phase=idle server=mosquitto connections=40 of=40");
            } else {
                System.out.println("MqttDemoITCase: mosquitto is not installed, its path not tried "
                        + "(apt-get install mosquitto)");
            }
        } finally {
            delivery.cancel().get(30, TimeUnit.SECONDS);
            echo.cancel().get(30, TimeUnit.SECONDS);
        }
    }
}
