package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which runs a report's charts draw: each CKC configuration beside the baseline with its nodes and load. */
class ReportChartsTest {

    private static Results.RunRow run(String config, String path, int nodes) {
        return new Results.RunRow(config, path, nodes, 1, path.equals(Results.CKC) ? 1 : 0, 10, 12, 10L * nodes,
                10L * nodes, 0, 50, 1, 1, 1, 1, 1);
    }

    @Test
    void eachCkcConfigurationIsDrawnBesideItsBaselineAndTheBaselinesGetNoPanelOfTheirOwn() {
        Results.RunRow k1000 = run("k1000", Results.KAFKA, 1000);
        Results.RunRow k5000 = run("k5000", Results.KAFKA, 5000);
        Results.RunRow one = run("1", Results.CKC, 1000);
        Results.RunRow three = run("3", Results.CKC, 5000);
        List<Results.RunRow> runs = List.of(k1000, one, k5000, three);

        assertThat(ReportCommand.drawnWith("1", runs)).containsExactly(one, k1000);
        assertThat(ReportCommand.drawnWith("3", runs)).containsExactly(three, k5000);
        assertThat(ReportCommand.chartedConfigs(runs)).containsExactly("1", "3");
    }

    @Test
    void aBaselineWithoutACkcRunKeepsItsOwnPanel() {
        Results.RunRow k1000 = run("k1000", Results.KAFKA, 1000);

        assertThat(ReportCommand.chartedConfigs(List.of(k1000))).containsExactly("k1000");
        assertThat(ReportCommand.drawnWith("k1000", List.of(k1000))).containsExactly(k1000);
    }
}
