package io.ckc.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which runs a report's charts draw: each CKC configuration beside the baseline with its nodes and load; a timeline's
 * events and guides.
 */
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

    @Test
    void aTimelineMarksEachFaultByItsNumberBesideThePriorP99AndTheRecoveryLimit(@TempDir Path dir) throws Exception {
        Results results = new Results(dir);
        Files.write(dir.resolve("faults.csv"), List.of(FaultsCommand.CSV_HEADER,
                "1,150,5.0,9.0,,150,0,0", "2,10,5.0,900.0,1:broker-kill,150,0,0", "3,150,5.0,20.0,,150,0,0",
                "4,150,5.0,12.0,2:gateway-kill gw-1,150,0,0", "5,150,5.0,9.0,,150,0,0"));
        Files.write(dir.resolve("faults.txt"), List.of("RESULT fault=1 kind=broker-kill",
                "RESULT baseline_p99_ms=13.6 baseline_seconds=30"));

        ReportCommand.write(results, new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));

        String html = Files.readString(dir.resolve("report.html"));
        assertThat(html).contains("Faults under load",
                "alt=\"Delivered under faults (ckc, sent, events 1, 2)\"",
                "alt=\"p99 RTT under faults (ckc, p99 before the first event, 100 ms: recovered, events 1, 2)\"");
        assertThat(ReportCommand.Html.baselineP99(dir.resolve("faults.txt"))).hasValue(13.6);
        assertThat(ReportCommand.Html.baselineP99(dir.resolve("absent.txt"))).isEmpty();
    }
}
