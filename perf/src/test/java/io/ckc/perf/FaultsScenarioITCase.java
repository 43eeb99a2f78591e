package io.ckc.perf;

import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.jobs.echo.EchoJob;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.GatewayList;
import io.ckc.testing.EmbeddedKafkaExtension;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A short {@code perf faults} on real parts (an in-JVM KRaft broker, the delivery and echo jobs on a MiniCluster,
 * two gateways, simulated nodes, for the load and for the MTD scenario beside it: half reliable-UDP nodes, half
 * MQTT 5 devices): a gateway killed and started again, the broker restarted, a reconnect burst, while the load and
 * the MTD messages run; and two messages lost on purpose (counted as sent, never sent). The run
 * must find exactly those two lost, none handed back, none answered twice, no duplicate past the nodes' dedupe:
 * the checking code itself is what this tests. (Expired deliveries, order and recovery times are measured and
 * printed, not asserted: {@code perf/README.md} gives their figures.)
 */
class FaultsScenarioITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4)
                    .build());

    private static final List<String> GATEWAYS = List.of("gw-1", "gw-2");

    @TempDir
    Path resultsDir;

    /** The in-JVM stack's faults: a gateway crashed and started again on its port, the broker restarted. */
    private static final class InJvmFaults implements FaultInjector {
        final Map<String, Gateway> gateways = new ConcurrentHashMap<>();
        final List<String> injected = new ArrayList<>();

        @Override
        public Optional<String> cannot(FaultPlan.Kind kind) {
            return switch (kind) {
                case GATEWAY_KILL, BROKER_KILL, RECONNECT_BURST -> Optional.empty();
                default -> Optional.of("not in this test");
            };
        }

        @Override
        public void beforeFault(FaultPlan.Kind kind) {
            injected.add("before " + kind.label());
        }

        @Override
        public void killTaskManager(PrintStream out) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void stopBroker(boolean kill, PrintStream out) throws Exception {
            injected.add("broker");
            KAFKA.restartBroker();
        }

        @Override
        public void killGateway(String gatewayId, PrintStream out) throws Exception {
            injected.add(gatewayId);
            Gateway dead = gateways.get(gatewayId);
            dead.crash();
            gateways.put(gatewayId, Gateway.start(config(gatewayId).toBuilder().udpPort(dead.udpAddress().getPort())
                    .mqttPort(dead.mqttAddress().orElseThrow().getPort()).build()));
        }

        @Override
        public void impair(String gatewayId, int lossPercent, int rateKbit, PrintStream out) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void lift(PrintStream out) {
        }
    }

    private static GatewayConfig config(String id) {
        return GatewayConfig.forTest(id, KAFKA.bootstrapServers(), Topics.DEFAULT).toBuilder().mqttPort(0).build();
    }

    @Test
    void aShortRunUnderFaultsFindsTheMessagesLostOnPurposeAndNoOtherLoss() throws Exception {
        Topics topics = Topics.DEFAULT;
        KAFKA.createTopics(topics, List.of("echo", MtdCommand.REPLY_CHANNEL), GATEWAYS);
        ParameterTool params = ParameterTool.fromArgs(new String[] {"--bootstrap", KAFKA.bootstrapServers(),
                "--parallelism", "1"});
        JobClient delivery = submit(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build);
        JobClient echo = submit(EchoJob.NAME, EchoJob.fromArgs(params)::build);
        InJvmFaults faults = new InJvmFaults();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            List<String> addresses = new ArrayList<>();
            List<String> mqttAddresses = new ArrayList<>();
            List<GatewayList.Entry> entries = new ArrayList<>();
            for (String id : GATEWAYS) {
                Gateway gateway = Gateway.start(config(id));
                faults.gateways.put(id, gateway);
                int port = gateway.udpAddress().getPort();
                addresses.add("127.0.0.1:" + port);
                mqttAddresses.add("127.0.0.1:" + gateway.mqttAddress().orElseThrow().getPort());
                entries.add(new GatewayList.Entry(id, List.of(new Endpoint(Endpoint.UDP, "127.0.0.1", port)), 1.0, 0));
            }
            // The PoA manager's list, so the nodes of a dead gateway know where to go.
            producer.send(new ProducerRecord<>(topics.gatewayList(), GatewayList.KEY, new RecordFormat().write(
                    new GatewayList(1, System.currentTimeMillis(), "test", entries)))).get();

            FaultsCommand command = new FaultsCommand(faults);
            new CommandLine(command).parseArgs("--nodes", "60", "--rate", "40", "--faults", "3", "--per-kind", "1",
                    "--kinds", "gateway-kill,broker-kill,reconnect-burst", "--seed", "3", "--first-fault-seconds", "10",
                    "--interval-seconds", "20", "--jitter-seconds", "0", "--roaming-nodes", "20", "--away-seconds", "6",
                    "--ttl-ms", "4000", "--lose-on-purpose", "2", "--drain-seconds", "15",
                    "--protocol", "mixed", "--gateways", String.join(",", addresses), "--mqtt-gateways",
                    String.join(",", mqttAddresses), "--bootstrap", KAFKA.bootstrapServers(),
                    "--io-threads", "1", "--results", resultsDir.toString());
            command.out = new PrintStream(printed, true, StandardCharsets.UTF_8);
            int code = command.call();
            String out = printed.toString(StandardCharsets.UTF_8);
            System.out.println(out);

            assertThat(faults.injected).as("each fault reached the stack, after the injector read what it reports on")
                    .hasSize(5).contains("broker").containsSubsequence("before broker-kill", "broker");
            String result = out.lines().filter(l -> l.startsWith("RESULT faults=")).findFirst().orElseThrow();
            assertThat(result).contains("faults=3 kinds=3 ", " lost=2 ", " unsent=0 ", " app_duplicates=0 ",
                    " mn_duplicates_after_dedupe=0 ", " expired_delivered=", " reordered=", " max_recovery_ms=");
            assertThat(code).as("a run that lost messages fails").isEqualTo(1);
            assertThat(out.lines().filter(l -> l.startsWith("RESULT fault="))).hasSize(3)
                    .allSatisfy(l -> assertThat(l).doesNotContain("failed=").contains(" to_baseline_ms="));
            assertThat(out.lines().filter(l -> l.startsWith("RESULT fault=") && l.contains("kind=gateway-kill")))
                    .as("the dead gateway's UDP nodes timed: until they gave it up, and until their new session")
                    .singleElement().asString().containsPattern(" nodes_back_ms=\\d+ nodes_gave_up_max_ms=\\d+ "
                            + "nodes_reconnect_p50_ms=\\d+ nodes_reconnect_max_ms=\\d+");
            assertThat(out).containsPattern("RESULT baseline_p99_ms=[0-9.]+ baseline_seconds=[1-9]");
            assertThat(out).contains("RESULT scenario=faults-mtd");
            assertThat(Files.readString(resultsDir.resolve("mtd.log"))).as("the MTD scenario ran mixed too")
                    .contains("20 nodes connected (mixed)");
            List<String> csv = Files.readAllLines(resultsDir.resolve("faults.csv"));
            assertThat(csv.get(0)).isEqualTo(FaultsCommand.CSV_HEADER);
            assertThat(csv.stream().filter(l -> l.split(",", -1)[4].matches("\\d+:.+"))).hasSize(3);
        } finally {
            delivery.cancel().get();
            echo.cancel().get();
            for (Gateway gateway : faults.gateways.values()) {
                gateway.close();
            }
        }
    }

    private static JobClient submit(String name, java.util.function.Consumer<StreamExecutionEnvironment> build)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        build.accept(env);
        return env.executeAsync(name);
    }
}
