package io.ckc.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The end-to-end workflow, checked where it cannot run: its steps, its agreement with the README, its refusal. */
class E2eCommandTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theKindRunInstallsTheOperatorsExactlyAsTheReadmeSays() throws IOException {
        String readme = Files.readString(ROOT.resolve("k8s/README.md"));
        String install = readme.substring(readme.indexOf("## Install"));
        for (String line : E2eCommand.OPERATOR_INSTALL) {
            assertThat(install).as("k8s/README.md installs with").contains(line + "\n");
        }
        List<String> steps = E2eCommand.kindSteps().stream().map(E2eCommand.Step::line).toList();
        assertThat(steps.get(steps.size() - 1)).isEqualTo("kind delete cluster --name ckc");
        assertThat(steps).contains("kubectl apply -k e2e/kind", "./ckc demo --on " + E2eCommand.DEMO_GATEWAYS
                + " --credentials " + E2eCommand.KIND_CREDENTIALS);
    }

    @Test
    void dryRunPrintsEveryStepInOrderWithTheCleanUpLast() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        int exit;
        try {
            exit = new CommandLine(new Ckc()).execute("e2e", "compose", "--dry-run");
        } finally {
            System.setOut(out);
        }
        String text = printed.toString(StandardCharsets.UTF_8);
        assertThat(exit).isZero();
        assertThat(text).containsSubsequence("docker compose -p ckc -f docker/compose.yaml build",
                "docker compose -p ckc -f docker/compose.yaml up -d", "wait submit",
                "./ckc demo --on 127.0.0.1:5500,127.0.0.1:5501,127.0.0.1:5502",
                "# remove the stack and its volumes (always)", "down -v");
    }

    @Test
    void withoutAContainerEngineItRefusesWithTheReasonAndRunsNothing() {
        boolean engine;
        try {
            Ckc.runForOutput(List.of("docker", "info"));
            engine = true;
        } catch (RuntimeException e) {
            engine = false;
        }
        Assumptions.assumeFalse(engine, "a Docker engine runs here: the e2e run itself is the check");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        CommandLine ckc = new CommandLine(new Ckc());
        ckc.setErr(new java.io.PrintWriter(printed, true, StandardCharsets.UTF_8));
        ckc.setExecutionExceptionHandler((e, line, parsed) -> {
            line.getErr().println(e.getMessage());
            return 1;
        });
        int exit = ckc.execute("e2e", "compose");

        assertThat(exit).isEqualTo(1);
        assertThat(printed.toString(StandardCharsets.UTF_8)).containsPattern("e2e needs (docker on the PATH|a running "
                + "Docker engine)");
    }

    @Test
    void everyStepOfTheWorkflowIsACommandOfTheTree() throws IOException {
        JsonNode workflow = new YAMLMapper().readTree(ROOT.resolve(".github/workflows/e2e.yml").toFile());
        List<String> runs = new ArrayList<>();
        workflow.get("jobs").forEach(job -> job.get("steps").forEach(step -> {
            if (step.has("run")) {
                runs.add(step.get("run").asText().trim());
            }
        }));
        assertThat(runs).containsExactlyInAnyOrder("./ckc e2e compose", "./ckc e2e kind");
        for (String run : runs) {
            String[] args = run.substring("./ckc ".length()).split(" ");
            CommandLine.ParseResult parsed = new CommandLine(new Ckc()).parseArgs(args);
            assertThat(parsed.subcommand().subcommand()).as(run).isNotNull();
        }
    }
}
