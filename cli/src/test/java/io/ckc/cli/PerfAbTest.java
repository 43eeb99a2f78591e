package io.ckc.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** The A/B table: what a RESULT line is about, its figures, every round and the medians of each side. */
class PerfAbTest {

    private static final Map<String, String> REVISIONS = new TreeMap<>(Map.of("A", "aaaaaaa", "B", "bbbbbbb"));

    @Test
    void aRunsResultLinesCountOnceEvenWhenTheCommandRecapsThem() {
        List<String> output = List.of("warm-up: 6 s", "RESULT step=1 rtt_p99_ms=9", "RESULT step=2 rtt_p99_ms=11",
                "recap:", "RESULT step=1 rtt_p99_ms=9", "RESULT step=2 rtt_p99_ms=11");
        assertThat(PerfAb.resultLines(output)).containsExactly("RESULT step=1 rtt_p99_ms=9", "RESULT step=2 rtt_p99_ms=11");
    }

    @Test
    void bFlagsGoToBsCommandLineOnlySoOneRevisionComparesAnOption() {
        List<String> command = List.of("perf", "stepped", "--paths", "ckc");
        assertThat(PerfAb.commandOf("A", command, List.of("--kafka-auth"))).isEqualTo(command);
        assertThat(PerfAb.commandOf("B", command, List.of("--kafka-auth")))
                .containsExactly("perf", "stepped", "--paths", "ckc", "--kafka-auth");
    }

    @Test
    void aResultLineIsToldApartByItsNamingWordsAndItsNumbersAreFigures() {
        PerfAb.Row row = PerfAb.parse(1, "A", "RESULT config=8 path=ckc nodes=15000 te=100.00 rtt_p99_ms=56.96");

        assertThat(row.label()).isEqualTo("config=8 path=ckc");
        assertThat(row.figures()).containsExactly(Map.entry("nodes", 15000.0), Map.entry("te", 100.0),
                Map.entry("rtt_p99_ms", 56.96));
    }

    @Test
    void aRunThatNeverRecoveredIsInTheSameTableAsOneThatDid() {
        List<PerfAb.Row> rows = List.of(
                PerfAb.parse(1, "A", "RESULT path=ckc delivered_ratio=0.84 recovery_ms=none"),
                PerfAb.parse(1, "B", "RESULT path=ckc delivered_ratio=0.91 recovery_ms=15000"),
                PerfAb.parse(2, "A", "RESULT path=ckc delivered_ratio=0.54 recovery_ms=9000"),
                PerfAb.parse(2, "B", "RESULT path=ckc delivered_ratio=0.73 recovery_ms=8000"));

        assertThat(rows).extracting(PerfAb.Row::label).containsOnly("path=ckc");
        assertThat(PerfAb.table(rows, REVISIONS)).contains("| A1 | 0.84 | none |", "| B1 | 0.91 | 15000 |",
                "| A median | 0.69 | none |", "| B median | 0.82 | 11500 |");
    }

    @Test
    void theTableListsEveryRunAndEachSidesMedian() {
        List<PerfAb.Row> rows = List.of(
                PerfAb.parse(1, "A", "RESULT nodes=1000 rtt_p99_ms=40"),
                PerfAb.parse(1, "B", "RESULT nodes=1000 rtt_p99_ms=30"),
                PerfAb.parse(2, "A", "RESULT nodes=1000 rtt_p99_ms=60"),
                PerfAb.parse(2, "B", "RESULT nodes=1000 rtt_p99_ms=20"));

        List<String> table = PerfAb.table(rows, REVISIONS);

        assertThat(table).contains("| run | nodes | rtt_p99_ms |", "| A1 | 1000 | 40 |", "| B1 | 1000 | 30 |",
                "| A2 | 1000 | 60 |", "| B2 | 1000 | 20 |", "| A median | 1000 | 50 |", "| B median | 1000 | 25 |");
        assertThat(table.get(0)).contains("A = aaaaaaa", "B = bbbbbbb");
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertThat(PerfAb.median(new double[] {3, 1, 4, 2})).isEqualTo(2.5);
        assertThat(PerfAb.median(new double[] {5})).isEqualTo(5.0);
        assertThat(PerfAb.median(new double[0])).isNull();
    }

    @Test
    void betweenRunsAClonesFlinkClusterStopsWithItsStack() {
        Path clone = Path.of("/tmp/ab/A");

        assertThat(PerfAb.stopCommands(clone)).containsExactly(List.of("/tmp/ab/A/ckc", "down"),
                List.of("/tmp/ab/A/ckc", "flink-cluster", "stop"));
    }
}
