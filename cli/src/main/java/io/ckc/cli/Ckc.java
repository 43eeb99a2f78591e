package io.ckc.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code ./ckc}: CKC on Flink on this machine, with real parts and no Docker. The script finds Java,
 * builds what changed and fetches the runtime jars; every decision is made here, one picocli command tree
 * whose help is generated from its options.
 */
@Command(name = "ckc", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Runs CKC on Flink on this machine: Kafka, the Flink jobs and the gateways as real processes "
                + "(their pids, logs and data under .ckc/), the demo, the perf scenarios and the operator commands.",
        subcommands = {UpCommand.class, Commands.Down.class, Commands.Status.class, Commands.Demo.class, Commands.Load.class,
                Commands.Jobs.class, Commands.Savepoint.class, Commands.Rescale.class, Commands.Restore.class,
                Commands.Sql.class, Commands.Drain.class, Commands.Undrain.class, Commands.FlinkCluster.class,
                Commands.MonitoringCommand.class, Commands.K8s.class, Commands.Docs.class, E2eCommand.class, ProfileCommand.class,
                CredentialsCommand.class, PerfCommands.class},
        footer = {"", "./ckc build: compile and package (the script does it when the sources changed)."})
public final class Ckc implements Runnable {

    /** A refusal or failure with one line to say; exit code 1, no stack trace. */
    static final class Failure extends RuntimeException {
        Failure(String message) {
            super(message);
        }
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    static void say(String message) {
        System.err.println("ckc: " + message);
    }

    /** Runs a short command to its end and returns what it printed; fails if it exits non-zero. */
    static String runForOutput(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.waitFor() != 0) {
                throw new Failure(String.join(" ", command.subList(0, Math.min(4, command.size()))) + "... failed:\n" + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted");
        }
    }

    /** Runs a command to its end, its output into {@code log}; fails with the log if it exits non-zero. */
    static void runOrFail(String what, Path log, List<String> command) {
        try {
            Files.createDirectories(log.getParent());
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (process.waitFor() != 0) {
                throw new Failure("cannot " + what + " (log: " + log + ")\n" + Processes.tail(log));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted");
        }
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static CommandLine commandLine() {
        CommandLine line = new CommandLine(new Ckc());
        line.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof Failure || e instanceof UncheckedIOException) {
                say(e.getMessage());
                return 1;
            }
            throw e;
        });
        return line;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
