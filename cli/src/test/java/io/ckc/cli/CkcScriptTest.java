package io.ckc.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./ckc} as a user runs it: the script hands its arguments to the command tree, whose help lists every
 * command, and a command it does not know is refused with a clear message and a non-zero exit, nothing started.
 * The script runs on this test's classpath without building ({@code CKC_NO_BUILD}).
 */
class CkcScriptTest {

    private static final Path SCRIPT = Path.of("..", "ckc").toAbsolutePath().normalize();

    record Run(int exitCode, String output) {
    }

    private static Run ckc(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("CKC_NO_BUILD", "1");
        builder.environment().put("CKC_CLASSPATH", System.getProperty("java.class.path"));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), output);
    }

    @Test
    void helpListsEveryCommandOfTheTree() throws Exception {
        Run run = ckc("--help");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("Usage: ckc").contains("  up ", "  down ", "  demo ", "  perf ", "  sql ",
                "  rescale ", "  flink-cluster ");
    }

    @Test
    void aCommandThatDoesNotExistIsRefusedAndStartsNothing() throws Exception {
        Run run = ckc("upp");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.output()).contains("Unmatched argument at index 0: 'upp'").contains("Did you mean: ckc up?");
    }

    @Test
    void anOptionThePerfCommandDoesNotKnowIsRefusedBeforeAStackStartsOrAResultsFolderIsMade() throws Exception {
        Path results = SCRIPT.getParent().resolve("perf/results");
        long folders;
        try (var list = java.nio.file.Files.list(results)) {
            folders = list.count();
        }

        Run run = ckc("perf", "stepped", "--nodes", "100", "--no-such-option", "1");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.output()).contains("ckc: Unknown options: '--no-such-option'").doesNotContain("starting Kafka");
        try (var list = java.nio.file.Files.list(results)) {
            assertThat(list.count()).isEqualTo(folders);
        }
    }

    @Test
    void eachPerfCommandsHelpShowsTheSimulatorsOwnOptions() throws Exception {
        Run run = ckc("perf", "overload", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.output()).contains("Usage: ckc perf overload").contains("Options of the simulator's overload")
                .contains("--saturation");
    }
}
