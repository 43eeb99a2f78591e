package io.ckc.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** perf mqtt's fixed load as perf/README's cost per round trip: µs per process and path, written between markers. */
class CostTableTest {

    private static final String HEADER = "path,offered_per_s,nodes,sent,delivered,rtt_p50_ms,rtt_p99_ms,rtt_mean_ms,process,cpu_pct";

    private static Results folder(Path parent, List<String> rows) throws Exception {
        Results results = new Results(parent.resolve("2026-11-28-0509-mqtt"));
        Files.write(results.dir().resolve(MqttCommand.FIXED_CSV), rows);
        return results;
    }

    @Test
    void eachProcessCpuIsDividedByTheRateAndEachPathIsAColumn(@TempDir Path dir) throws Exception {
        Results results = folder(dir, List.of(HEADER,
                "ckc,2000,1000,60000,60000,6.58,32.72,7.94,flink-embedded,57.5",
                "ckc,2000,1000,60000,60000,6.58,32.72,7.94,gateways,38.8",
                "kafka,2000,1000,60000,60000,0.56,2.66,0.64,flink-embedded,3.6",
                "kafka,2000,1000,60000,60000,0.56,2.66,0.64,gateways,0.6"));
        String table = CostTable.markdown(results, "./ckc perf mqtt --rate 2000").orElseThrow();
        assertThat(table).contains("`./ckc perf mqtt --rate 2000`, 2026-11-28 ([results](results/2026-11-28-0509-mqtt/))")
                .contains("| µs of CPU per round trip | ckc | kafka |")
                .contains("| Flink (embedded MiniCluster: all jobs) | 288 | 18 |") // 57.5% of a core / 2,000 per s
                .contains("| gateway | 194 | 3 |")
                .contains("| **all** | **482** | **21** |")
                .contains("| RTT p50 / p99, ms | 6.58 / 32.72 | 0.56 / 2.66 |");
        assertThat(CostTable.comparesCkcWithTheEcho(results)).isTrue();
    }

    @Test
    void onlyARunWithCkcAndTheEchoReplacesTheReadmeSection(@TempDir Path dir) throws Exception {
        Results mqttOnly = folder(dir, List.of(HEADER, "mqtt,1000,1000,30000,30000,3.1,20.0,4.0,gateways,20.0"));
        assertThat(CostTable.comparesCkcWithTheEcho(mqttOnly)).isFalse();
        assertThat(CostTable.markdown(new Results(dir.resolve("empty")), null)).isEmpty();

        String readme = "# Figures\n\n" + CostTable.BEGIN + "\nthe old table\n" + CostTable.END + "\n\nMore text.\n";
        String spliced = CostTable.splice(readme, "| new |\n");
        assertThat(spliced).isEqualTo("# Figures\n\n" + CostTable.BEGIN + "\n| new |\n" + CostTable.END + "\n\nMore text.\n");
        assertThat(CostTable.splice(spliced, "| newer |\n")).doesNotContain("| new |").contains("| newer |");
        assertThatThrownBy(() -> CostTable.splice("# no markers\n", "| new |\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(CostTable.BEGIN);
    }

    @Test
    void perfReadmeHasTheSection() throws Exception {
        Path readme = Path.of("..", "perf", "README.md");
        String text = Files.readString(readme);
        assertThat(text).contains(CostTable.BEGIN).contains(CostTable.END);
        assertThat(text.indexOf(CostTable.BEGIN)).isLessThan(text.indexOf(CostTable.END));
    }
}
