package io.ckc.jobs.ops;

import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the operator commands in the test's JVM, as {@code ./ckc} runs them in its own, and keeps what they printed. */
final class Commands {

    /** What one command printed and returned. */
    record Outcome(int code, String out, String err) {
    }

    private Commands() {
    }

    static Outcome run(String... args) {
        JobsCommand command = new JobsCommand();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        command.out = new PrintStream(out, true, StandardCharsets.UTF_8);
        command.err = new PrintStream(err, true, StandardCharsets.UTF_8);
        int code = new CommandLine(command).execute(args);
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
