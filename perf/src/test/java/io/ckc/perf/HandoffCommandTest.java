package io.ckc.perf;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The hand-off calibration prints one RESULT line per idle gap, with the round trips it measured. */
class HandoffCommandTest {

    @Test
    void printsOneResultPerGapWithItsPercentiles() {
        HandoffCommand command = new HandoffCommand();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        command.out = new PrintStream(printed, true, StandardCharsets.UTF_8);

        int exit = new CommandLine(command).execute("--gaps-ms", "0,2", "--round-trips", "30");

        assertThat(exit).isZero();
        List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("RESULT handoff gap_ms=0 round_trips=30 p50_us=");
        assertThat(lines.get(1)).startsWith("RESULT handoff gap_ms=2 round_trips=30 p50_us=");
        for (String line : lines) {
            long p50 = Long.parseLong(line.replaceAll(".* p50_us=(\\d+) .*", "$1"));
            long p99 = Long.parseLong(line.replaceAll(".* p99_us=(\\d+) .*", "$1"));
            assertThat(p50).as("a round trip takes time").isPositive();
            assertThat(p99).isGreaterThanOrEqualTo(p50);
        }
    }
}
