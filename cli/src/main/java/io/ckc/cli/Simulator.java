package io.ckc.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A run of the fleet simulator ({@code io.ckc.perf}) in a JVM of its own, as every measurement runs: a
 * fresh JIT and heap for each, its garbage-collection pauses logged. Its output goes to the terminal and,
 * when given, to a log in the results folder; its RESULT lines are kept.
 */
final class Simulator {

    /** What a run printed that a command uses. */
    record Outcome(int exitCode, List<String> results) {
    }

    private final Home home;
    private final List<String> jvmOptions;
    private final String classpath;
    private final String mainClass;
    /** The environment beyond the stack's ({@link Stack#simulatorEnvironment}): a stack elsewhere's credentials. */
    private Map<String, String> environment = Map.of();

    private Simulator(Home home, List<String> jvmOptions) {
        this(home, jvmOptions, Home.ownClasspath(), SimulatorMain.class.getName());
    }

    private Simulator(Home home, List<String> jvmOptions, String classpath, String mainClass) {
        this.home = home;
        this.jvmOptions = jvmOptions;
        this.classpath = classpath;
        this.mainClass = mainClass;
    }

    /**
     * The load generator of both paths, on ZGC: its pauses stay under a millisecond, where G1's reached 73 ms
     * and showed in the round trips it measures.
     */
    static Simulator measuring(Home home) {
        return new Simulator(home, List.of("-Xmx6g", "-XX:+UseZGC", new Processes(home).gcLog("simulator")));
    }

    /** The demo's fleet. */
    static Simulator demo(Home home) {
        return new Simulator(home, List.of("-Xmx4g", "-XX:+UseG1GC"));
    }

    /** The capacity run's heap unless it asks for more: a hundred thousand idle nodes and their sessions. */
    static final int CAPACITY_HEAP_GB = 8;

    /** The capacity run's idle nodes and their sessions, on {@code heapGb} of heap (0: {@link #CAPACITY_HEAP_GB}). */
    static Simulator capacity(Home home, int heapGb) {
        return new Simulator(home, List.of("-Xmx" + (heapGb > 0 ? heapGb : CAPACITY_HEAP_GB) + "g", "-XX:+UseG1GC"));
    }

    /** The end-to-end probe and warm-up of {@code up}. */
    static Simulator probe(Home home) {
        return new Simulator(home, List.of("-Xmx1g", "-XX:+UseG1GC"));
    }

    /**
     * The fuzz runner ({@code io.ckc.fuzz}) from the fuzz module's own classpath, which holds Jazzer and Flink's
     * operator test harness; it starts a JVM per target itself.
     */
    static Simulator fuzzer(Home home) {
        Path module = home.root.resolve("fuzz/target");
        return new Simulator(home, List.of("-Xmx512m"), module.resolve("classes") + java.io.File.pathSeparator
                + module.resolve("lib") + "/*", "io.ckc.fuzz.FuzzCommand");
    }

    /** The same simulator, its nodes proving the keys of the store's simulator fleet (a stack that runs elsewhere). */
    Simulator authenticating(Path credentials) {
        environment = Map.of("CKC_CREDENTIALS", credentials.toAbsolutePath().toString(), "CKC_FLEET",
                Stack.SIMULATOR_FLEET);
        return this;
    }

    /** Runs the simulator command {@code args}; {@code log}, if not null, gets its output appended. */
    Outcome run(List<String> args, Path log) {
        List<String> command = new ArrayList<>(List.of("java"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-Dckc.root=" + home.root, "-cp", classpath, mainClass));
        command.addAll(args);
        List<String> results = new ArrayList<>();
        try {
            Files.createDirectories(home.logs);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().putAll(Stack.simulatorEnvironment(home));
            builder.environment().putAll(environment);
            Process process = builder.start();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
                 Writer out = log == null ? Writer.nullWriter() : Files.newBufferedWriter(log, StandardCharsets.UTF_8,
                         StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                String line;
                while ((line = in.readLine()) != null) {
                    System.out.println(line);
                    out.write(line);
                    out.write('\n');
                    out.flush();
                    if (line.startsWith("RESULT ")) {
                        results.add(line);
                    }
                }
            }
            return new Outcome(process.waitFor(), results);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Ckc.Failure("interrupted");
        }
    }
}
