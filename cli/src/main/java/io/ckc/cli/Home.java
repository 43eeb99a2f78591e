package io.ckc.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Where everything of this checkout is: the project root that {@code ./ckc} passes as {@code ckc.root},
 * the built jars, and {@code .ckc/} with the pids, logs, data and runtime classpaths of what the
 * commands start.
 */
public final class Home {

    /** The project root. */
    public final Path root;
    /** {@code .ckc}: everything the commands start keeps its pid, log and data here. */
    public final Path state;
    public final Path pids;
    public final Path logs;

    public Home(Path root) {
        this.root = root.toAbsolutePath().normalize();
        this.state = this.root.resolve(".ckc");
        this.pids = state.resolve("pids");
        this.logs = state.resolve("logs");
    }

    /** The checkout {@code ./ckc} runs from ({@code -Dckc.root}), else the working directory. */
    public static Home current() {
        return new Home(Path.of(System.getProperty("ckc.root", ".")));
    }

    /** Whether a program is installed: an executable of that name in a directory of the PATH. */
    public static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The credential store the stack's gateways authenticate nodes against ({@code ./ckc up} creates it with the
     * simulator's fleet).
     */
    public Path credentials() {
        return state.resolve("credentials.json");
    }

    /** The stack's self-signed TLS certificate for the gateways' MQTT listeners ({@code ./ckc up} makes it). */
    public Path gatewayKeystore() {
        return state.resolve("gateway-tls.p12");
    }

    /**
     * The stack's authority for MQTT devices' client certificates ({@code ./ckc up} makes it; its certificate, in PEM
     * beside it, is what the gateways trust; {@code ./ckc credentials certificate} issues devices' certificates).
     */
    public Path deviceAuthority() {
        return state.resolve("device-ca.p12");
    }

    /** Where {@code ./ckc credentials certificate} puts devices' certificates and keys. */
    public Path devices() {
        return state.resolve("devices");
    }

    /** The local Kafka's principals and their client settings ({@code ./ckc up --kafka-auth}, {@link KafkaAuth}). */
    public Path kafkaCredentials() {
        return state.resolve("kafka-auth");
    }

    /** The running stack's shape, written by {@code ./ckc up}. */
    public Path stackShape() {
        return state.resolve("stack.properties");
    }

    public Path gatewayJar() {
        return root.resolve("gateway-edge/target/ckc-gateway.jar");
    }

    public Path jobsJar() {
        return root.resolve("jobs/target/ckc-jobs.jar");
    }

    /** The runtime jars {@code ./ckc} fetched from Maven Central: kafka, flink, profiler. */
    public Path lib(String runtime) {
        return state.resolve("lib").resolve(runtime);
    }

    /** A classpath entry of every jar in {@link #lib}. */
    public String libClasspath(String runtime) {
        return lib(runtime) + "/*";
    }

    /** The classpath this JVM runs with, for the simulators it starts. */
    public static String ownClasspath() {
        return System.getProperty("java.class.path");
    }

    /** A new results folder {@code perf/results/<date>-<name>}. */
    public Path newResults(String name) {
        Path dir = root.resolve("perf/results")
                .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm")) + "-" + name);
        try {
            Files.createDirectories(dir);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return dir;
    }

    public Path pidFile(String process) {
        return pids.resolve(process + ".pid");
    }

    public Path log(String process) {
        return logs.resolve(process + ".log");
    }
}
