package io.ckc.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the perf commands hand the simulator and its report about the stack they run on. */
class PerfCommandsTest {

    private static final StackShape TWO_GATEWAYS = new StackShape(2, "one", 1, 1, List.of(), List.of(), false, null,
            false);

    @Test
    void aScenarioThatReadsTheGatewaysMetricsGetsTheirUrlsAndOneThatDoesNotGetsNone() {
        List<String> overload = new PerfCommands.Overload().withStack(List.of("overload", "--nodes", "10"), TWO_GATEWAYS);
        assertThat(overload).containsSubsequence("--gateway-metrics",
                "http://127.0.0.1:9400/metrics,http://127.0.0.1:9401/metrics");
        assertThat(overload).containsSubsequence("--gateways", "127.0.0.1:5500,127.0.0.1:5501");

        List<String> rescale = new PerfCommands.Rescale().withStack(List.of("rescale"), TWO_GATEWAYS);
        assertThat(rescale).doesNotContain("--gateway-metrics");
    }

    @Test
    void perfMqttAsksItsReportToWriteTheReadmesCostTableWithItsCommandLine() {
        PerfCommands.Mqtt mqtt = new PerfCommands.Mqtt();
        mqtt.options = List.of("--paths", "ckc,kafka", "--rate", "2000");
        Home home = new Home(Path.of("/tmp/ckc-home"));

        assertThat(mqtt.reportOptions(home)).containsExactly("--readme", "/tmp/ckc-home/perf/README.md", "--command",
                "./ckc perf mqtt --paths ckc,kafka --rate 2000");
        assertThat(new PerfCommands.Overload().reportOptions(home)).isEmpty();
    }

    @Test
    void anOptionsValueIsReadWrittenEitherWay() {
        assertThat(PerfCommands.valueOf(List.of("--minutes", "5", "--judge", "perf/results/x"), "--judge"))
                .isEqualTo("perf/results/x");
        assertThat(PerfCommands.valueOf(List.of("--judge=perf/results/x"), "--judge")).isEqualTo("perf/results/x");
        assertThat(PerfCommands.valueOf(List.of("--judged", "x", "--judge"), "--judge")).as("no value").isNull();
        assertThat(PerfCommands.channelOf(List.of("--channel=echo"))).isEmpty();
    }
}
