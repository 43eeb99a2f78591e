package io.ckc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a running stack is, as later commands find it, and whether it serves what a command asks for. */
class StackShapeTest {

    @Test
    void aSavedShapeIsReadBackAsItWas(@TempDir Path dir) {
        StackShape shape = new StackShape(3, "each", 2, 1, List.of("--mtd", "false"), List.of("shout"), true,
                "http://127.0.0.1:8081", true, 9, List.of("CKC_SESSION_TIMEOUT_MS=120000", "CKC_PING_SAMPLE=500"), true);

        shape.save(dir.resolve("stack.properties"));

        assertThat(StackShape.load(dir.resolve("stack.properties"))).contains(shape);
        assertThat(StackShape.load(dir.resolve("none.properties"))).isEmpty();
    }

    @Test
    void aStackServesACommandWithTheSameGatewaysParallelismAndFlagsAndEveryChannelItNeeds() {
        StackShape running = new StackShape(3, "one", 1, 1, List.of(), List.of("shout"), false, null, false);

        assertThat(running.serves(new StackShape(3, "one", 1, 1, List.of(), List.of(), false, null, false))).isTrue();
        assertThat(running.serves(new StackShape(3, "one", 1, 1, List.of(), List.of("shout"), false, null, false))).isTrue();
        assertThat(running.serves(new StackShape(1, "one", 1, 1, List.of(), List.of(), false, null, false))).isFalse();
        assertThat(running.serves(new StackShape(3, "one", 3, 1, List.of(), List.of(), false, null, false))).isFalse();
        assertThat(running.serves(new StackShape(3, "each", 1, 1, List.of(), List.of(), false, null, false))).isFalse();
        assertThat(running.serves(new StackShape(3, "one", 1, 1, List.of("--mtd", "false"), List.of(), false, null, false)))
                .isFalse();
        assertThat(running.serves(new StackShape(3, "one", 1, 1, List.of(), List.of("other"), false, null, false))).isFalse();
        StackShape plain = new StackShape(3, "one", 1, 1, List.of(), List.of(), false, null, false);
        assertThat(running.serves(plain.withGateways(9, List.of()))).as("another heap").isFalse();
        assertThat(running.serves(plain.withGateways(0, List.of("CKC_SESSION_TIMEOUT_MS=120000")))).isFalse();
        assertThat(running.withGateways(9, List.of("CKC_SESSION_TIMEOUT_MS=120000"))
                .serves(plain.withGateways(9, List.of("CKC_SESSION_TIMEOUT_MS=120000")))).isTrue();
        assertThat(running.serves(plain.withKafkaAuth(true))).as("Kafka with authentication").isFalse();
        assertThat(running.withKafkaAuth(true).serves(plain.withKafkaAuth(true))).isTrue();
    }

    @Test
    void withKafkaAuthenticationEveryJobIsToldWhereItsPrincipalsSettingsAre() {
        StackShape open = new StackShape(1, "one", 1, 1, List.of(), List.of(), false, null, false);
        assertThat(open.stackFlags()).doesNotContain("--kafka-credentials");
        List<String> flags = open.withKafkaAuth(true).stackFlags();
        assertThat(flags).contains("--kafka-credentials");
        assertThat(flags.get(flags.indexOf("--kafka-credentials") + 1)).endsWith(".ckc/kafka-auth");
        assertThat(open.withKafkaAuth(true).resubmitFlags()).contains("--kafka-credentials");
    }

    @Test
    void theStacksTopicsHaveAPartitionForEachSubtaskOfItsWidestJob() {
        assertThat(KafkaBroker.partitions(new StackShape(1, "one", 1, 1, List.of(), List.of(), false, null, false)))
                .isEqualTo(1);
        assertThat(KafkaBroker.partitions(new StackShape(1, "one", 4, 2, List.of(), List.of(), false, null, false)))
                .isEqualTo(4);
        assertThat(KafkaBroker.partitions(new StackShape(1, "one", 1, 3, List.of(), List.of(), false, null, false)))
                .isEqualTo(3);
    }

    @Test
    void gatewaysRunOnTheHeapAndSettingsTheShapeGives() {
        StackShape plain = new StackShape(1, "one", 1, 1, List.of(), List.of(), false, null, false);
        assertThat(plain.gatewayHeap()).isEqualTo("3g");
        assertThat(plain.gatewayEnvironment()).isEmpty();
        assertThat(new StackShape(3, "each", 1, 1, List.of(), List.of(), false, null, false).gatewayHeap()).isEqualTo("2g");

        StackShape large = plain.withGateways(9, List.of("CKC_SESSION_TIMEOUT_MS=120000"));
        assertThat(large.gatewayHeap()).isEqualTo("9g");
        assertThat(large.gatewayEnvironment()).containsExactly(Map.entry("CKC_SESSION_TIMEOUT_MS", "120000"));
        assertThatThrownBy(() -> plain.withGateways(0, List.of("SESSION_TIMEOUT 1")))
                .hasMessageContaining("NAME=value");
    }

    @Test
    void aGatewayRunsOnTheStacksMallocThenItsSecurityTheShapesSettingsAndItsOwn() {
        StackShape shape = new StackShape(3, "each", 1, 1, List.of(), List.of(), false, null, false)
                .withGateways(0, List.of("CKC_SESSION_TIMEOUT_MS=120000", "CKC_UDP_PORT=1"));

        Map<String, String> env = Stack.gatewayEnvironment(Map.of("LD_PRELOAD", "/lib/libjemalloc.so.2"),
                Map.of("CKC_INSECURE", "true"), shape, Map.of("CKC_GATEWAY_ID", "gw-1", "CKC_UDP_PORT", "5500"));

        assertThat(env).containsExactlyInAnyOrderEntriesOf(Map.of("LD_PRELOAD", "/lib/libjemalloc.so.2",
                "CKC_INSECURE", "true", "CKC_SESSION_TIMEOUT_MS", "120000", "CKC_GATEWAY_ID", "gw-1",
                "CKC_UDP_PORT", "5500"));
    }

    @Test
    void aCapacityRunSizesItsHeapsAndTheSessionTimeoutByWhatItHolds() {
        assertThat(PerfCommands.Capacity.heapGb(100_000, 3)).as("the default is enough").isZero();
        assertThat(PerfCommands.Capacity.heapGb(1_000_000, 3)).as("8 KB a node and 1 GB").isEqualTo(9);
        assertThat(PerfCommands.Capacity.gatewaySettings(15)).isEmpty();
        assertThat(PerfCommands.Capacity.gatewaySettings(60)).containsExactly("CKC_SESSION_TIMEOUT_MS=120000");
    }

    @Test
    void theJobsGetKafkaAndTheParallelismThenTheStacksFlags() {
        StackShape shape = new StackShape(1, "one", 3, 2, List.of("--ranking", "latency"), List.of(), false, null, false);

        assertThat(shape.stackFlags()).containsExactly("--bootstrap", "127.0.0.1:9092", "--delivery-parallelism", "2",
                "--echo-parallelism", "3", "--echo-channels", "echo-in-job", "--ranking", "latency");
        assertThat(shape.resubmitFlags()).containsExactly("--bootstrap", "127.0.0.1:9092", "--echo-channels",
                "echo-in-job", "--ranking", "latency");
        assertThat(shape.gatewayAddresses()).containsExactly("127.0.0.1:5500");
    }

    @Test
    void aShapeThatCannotRunIsRefusedWithWhatToGive() {
        assertThatThrownBy(() -> new StackShape(0, "one", 1, 1, List.of(), List.of(), false, null, false))
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> new StackShape(1, "some", 1, 1, List.of(), List.of(), false, null, false))
                .hasMessageContaining("one or each");
    }
}
