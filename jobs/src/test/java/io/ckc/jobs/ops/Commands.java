package io.ckc.jobs.ops;

import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/** Runs the operator commands in the test's JVM, as {@code ./ckc} runs them in its own, and keeps what they printed. */
final class Commands {

    /** What one command printed and returned. */
    record Outcome(int code, String out, String err) {
    }

    private Commands() {
    }

    /**
     * A jar with only a manifest: the REST API uploads and runs it like the shaded jobs jar, and its
     * entry classes resolve from the test's classpath (the MiniCluster's parent class loader), which the
     * test phase has and the shaded jar, built after it, does not yet.
     */
    static Path classpathJar(Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream ignored = new JarOutputStream(out, manifest)) {
            return jar;
        }
    }

    /** Runs the rule commands ({@code ./ckc sql ...}) likewise. */
    static Outcome rules(String... args) {
        RulesCommand command = new RulesCommand();
        return execute(command, out -> command.out = out, err -> command.err = err, args);
    }

    static Outcome run(String... args) {
        JobsCommand command = new JobsCommand();
        return execute(command, out -> command.out = out, err -> command.err = err, args);
    }

    private static Outcome execute(Object command, Consumer<PrintStream> setOut, Consumer<PrintStream> setErr,
                                   String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        setOut.accept(new PrintStream(out, true, StandardCharsets.UTF_8));
        setErr.accept(new PrintStream(err, true, StandardCharsets.UTF_8));
        int code = new CommandLine(command).execute(args);
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
