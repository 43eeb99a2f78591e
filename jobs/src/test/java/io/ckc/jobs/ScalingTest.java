package io.ckc.jobs;

import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.jobs.echo.EchoJob;
import io.ckc.jobs.groups.GroupDefinerJob;
import io.ckc.jobs.poa.PoaManagerJob;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.util.ParameterTool;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every job of the stack is built with an explicit max parallelism and a uid on every operator, so a
 * savepoint restores at another parallelism. Nothing runs: the jobs' graphs are only built.
 */
class ScalingTest {

    private static StreamGraph graphOf(String job, String... flags) {
        ParameterTool params = ParameterTool.fromArgs(flags);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Consumer<StreamExecutionEnvironment> build = switch (job) {
            case "delivery" -> DeliveryJob.fromArgs(params)::build;
            case "poa-manager" -> PoaManagerJob.fromArgs(params)::build;
            case "echo" -> EchoJob.fromArgs(params)::build;
            case "group-definer" -> GroupDefinerJob.fromArgs(params.mergeWith(
                    ParameterTool.fromArgs(new String[] {"--selection", "grid-cell"})))::build;
            default -> throw new IllegalArgumentException(job);
        };
        build.accept(env);
        return env.getStreamGraph(false);
    }

    @ParameterizedTest
    @ValueSource(strings = {"delivery", "poa-manager", "echo", "group-definer"})
    void everyOperatorHasAStableUidAndTheMaxParallelismTheFlagsSay(String job) {
        StreamGraph graph = graphOf(job, "--bootstrap", "unused:9092", "--parallelism", "2", "--max-parallelism", "64");
        assertThat(graph.getStreamNodes()).isNotEmpty();
        for (StreamNode node : graph.getStreamNodes()) {
            assertThat(node.getTransformationUID()).as("uid of %s", node.getOperatorName()).isNotBlank();
            if (node.getMaxParallelism() != 1) { // a global step (the PoA manager's balancing) stays at 1 for good
                assertThat(node.getMaxParallelism()).as("max parallelism of %s", node.getOperatorName()).isEqualTo(64);
            } else {
                assertThat(node.getParallelism()).as("parallelism of the global %s", node.getOperatorName()).isOne();
            }
        }
        assertThat(graph.getStreamNodes()).anyMatch(node -> node.getMaxParallelism() == 64 && node.getParallelism() == 2);
        assertThat(graphOf(job, "--bootstrap", "unused:9092").getStreamNodes()).allSatisfy(node ->
                assertThat(node.getMaxParallelism()).isIn(1, Scaling.DEFAULT_MAX_PARALLELISM));
    }

    @Test
    void aParallelismAboveTheMaxOrAMaxOutOfFlinksRangeIsRefusedWithTheFlagsName() {
        assertThatThrownBy(() -> Scaling.fromArgs(ParameterTool.fromArgs(new String[] {"--parallelism", "200"}), -1))
                .hasMessageContaining("--parallelism").hasMessageContaining("128");
        assertThatThrownBy(() -> Scaling.fromArgs(ParameterTool.fromArgs(new String[] {"--max-parallelism", "0"}), 1))
                .hasMessageContaining("--max-parallelism");
        assertThat(Scaling.fromArgs(ParameterTool.fromArgs(new String[0]), -1)).isEqualTo(new Scaling(-1, 128));
    }
}
