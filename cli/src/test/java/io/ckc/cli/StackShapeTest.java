package io.ckc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a running stack is, as later commands find it, and whether it serves what a command asks for. */
class StackShapeTest {

    @Test
    void aSavedShapeIsReadBackAsItWas(@TempDir Path dir) {
        StackShape shape = new StackShape(3, "each", 2, 1, List.of("--mtd", "false"), List.of("shout"), true,
                "http://127.0.0.1:8081", true);

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
