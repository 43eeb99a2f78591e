package io.ckc.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The processes the commands start and stop: each runs detached from the command (its own session,
 * so neither the command's end nor a Ctrl-C in its terminal stops it), its output in a log under
 * {@code .ckc/logs} and its pid in {@code .ckc/pids/<name>.pid}.
 */
public final class Processes {

    private static final String SETSID = "/usr/bin/setsid";
    private static final String RENICE = "/usr/bin/renice";

    private final Home home;
    private Map<String, String> nativeMemoryEnv;

    public Processes(Home home) {
        this.home = home;
    }

    /** Starts {@code command} as process {@code name}, its output into {@code log}. */
    public void start(String name, Path log, Map<String, String> env, List<String> command) {
        try {
            Files.createDirectories(home.pids);
            Files.createDirectories(log.getParent());
            List<String> detached = new ArrayList<>();
            if (Files.isExecutable(Path.of(SETSID))) {
                detached.add(SETSID);
            }
            detached.addAll(command);
            ProcessBuilder builder = new ProcessBuilder(detached).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            builder.environment().putAll(env);
            Process process = builder.start();
            Files.writeString(home.pidFile(name), String.valueOf(process.pid()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    /**
     * The threads of process {@code name} whose names start with {@code prefix} run at the lowest CPU priority (nice
     * 19): they get a core only when the stack's other threads leave it. Needs {@code renice} (util-linux); without
     * it, or for a process that is not running, nothing changes. Returns how many threads it lowered.
     */
    public int lowerPriority(String name, String prefix) {
        Optional<Long> pid = pid(name);
        if (pid.isEmpty() || !Files.isExecutable(Path.of(RENICE))) {
            return 0;
        }
        List<String> tids = new ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc", pid.get().toString(), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).startsWith(prefix)) {
                        tids.add(task.getFileName().toString());
                    }
                } catch (IOException gone) {
                    // the thread ended
                }
            }
        } catch (IOException e) {
            return 0;
        }
        if (tids.isEmpty()) {
            return 0;
        }
        List<String> renice = new ArrayList<>(List.of(RENICE, "-n", "19", "-p"));
        renice.addAll(tids);
        try {
            Process process = new ProcessBuilder(renice).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return process.waitFor() == 0 ? tids.size() : 0;
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    public Optional<Long> pid(String name) {
        Path file = home.pidFile(name);
        try {
            return Files.exists(file) ? Optional.of(Long.parseLong(Files.readString(file).trim())) : Optional.empty();
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    public boolean isRunning(String name) {
        return pid(name).flatMap(ProcessHandle::of).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Every process with a pid file, running or not. */
    public List<String> known() {
        try (var files = Files.list(home.pids)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".pid"))
                    .map(n -> n.substring(0, n.length() - 4)).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** SIGTERM, then SIGKILL if it has not stopped after 10 s; forgets the pid either way. */
    public void stop(String name) {
        pid(name).flatMap(ProcessHandle::of).ifPresent(process -> {
            process.destroy();
            try {
                process.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception notYet) {
                Ckc.say(name + " did not stop in 10 s: killing it");
                process.destroyForcibly();
                process.onExit().join();
            }
        });
        try {
            Files.deleteIfExists(home.pidFile(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until {@code log} holds {@code text}; fails with the log's tail if the process exits or time runs out. */
    public void awaitLog(String name, Path log, String text, Duration timeout) {
        awaitLog(name, log, () -> contains(log, text), timeout, "'" + text + "'");
    }

    public void awaitLog(String name, Path log, BooleanSupplier ready, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (ready.getAsBoolean()) {
                return;
            }
            if (!isRunning(name)) {
                throw new Ckc.Failure(name + " exited during start (log: " + log + ")\n" + tail(log));
            }
            sleep(100);
        }
        throw new Ckc.Failure(name + " not ready after " + timeout.toSeconds() + " s: no " + what + " (log: " + log
                + ")\n" + tail(log));
    }

    static boolean contains(Path log, String text) {
        try {
            return Files.exists(log) && Files.readString(log, StandardCharsets.ISO_8859_1).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    /** The size of {@code log} now, 0 if it does not exist: where a wait for a line the process has yet to write starts. */
    static long size(Path log) {
        try {
            return Files.exists(log) ? Files.size(log) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * Whether {@code text} appears in {@code log} past byte {@code from} (in all of it if it was rolled over since). Why
     * not read it all: Kafka's server.log grows to tens of MB, and reading 46 MB ten times a second took a core from
     * the broker it waited for.
     */
    static boolean containsAfter(Path log, long from, String text) {
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(log)) {
            long start = channel.size() < from ? 0 : from;
            java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE - 8,
                    channel.size() - start));
            while (bytes.hasRemaining() && channel.read(bytes, start + bytes.position()) > 0) {
                // reads the part written since
            }
            return new String(bytes.array(), 0, bytes.position(), StandardCharsets.ISO_8859_1).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    public static boolean portOpen(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * For a JVM whose heap is fixed ({@code -Xms} equal to {@code -Xmx}: Kafka and Flink): every page of the heap is
     * touched at start, not the first time the collector hands out its region. Otherwise a steady process's resident
     * memory creeps up for hours until the whole heap has been used once (a TaskManager's heap mapping went from 164 to
     * 243 MB resident of 414 in the first minutes of a soak, Kafka's by 51 MB an hour), which hides a native leak behind
     * growth that is bounded, and lets a memory limit be crossed hours after start instead of at it.
     */
    static final String PRE_TOUCH_HEAP = "-XX:+AlwaysPreTouch";

    /**
     * Where Debian and Ubuntu put jemalloc ({@code apt-get install libjemalloc2}), as Flink's Docker image looks for it.
     */
    static final List<Path> JEMALLOC = List.of(Path.of("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"),
            Path.of("/usr/lib/aarch64-linux-gnu/libjemalloc.so.2"), Path.of("/usr/lib64/libjemalloc.so.2"));

    /**
     * The environment of the long-running JVMs whose native memory churns (Flink's, the cluster's and the embedded one,
     * Kafka's and the gateways'): jemalloc as their malloc where the machine has it, as in Flink's Docker image, and
     * {@code DISABLE_JEMALLOC=true} keeps glibc's, as there; with glibc, two arenas instead of eight per core. Why:
     * RocksDB allocates and frees native memory on many threads, and glibc keeps the freed pieces in its arenas' heaps.
     * With one arena per thread a TaskManager's resident memory grew by 48-65 MB an hour (its Java heap flat) in the
     * hour-long soak of 2026-11-26; with two, by 29 MB an hour (perf/results/2026-11-27-1126-soak), an arena's heap
     * growing by 24 MB in three minutes. Kafka on glibc, its heap touched at start, grew by 2-5 MB an hour beyond its
     * code cache and mapped files in three soaks of four; on jemalloc it was flat (perf/results/2026-12-01-1413-soak).
     */
    static Map<String, String> nativeMemoryEnv(Map<String, String> environment, List<Path> jemallocCandidates) {
        if (!jemallocDisabled(environment)) {
            for (Path library : jemallocCandidates) {
                if (Files.isReadable(library)) {
                    return Map.of("LD_PRELOAD", library.toString());
                }
            }
        }
        return Map.of("MALLOC_ARENA_MAX", "2");
    }

    /** Whether the environment asks to keep glibc's malloc ({@code DISABLE_JEMALLOC=true}, as in Flink's image). */
    private static boolean jemallocDisabled(Map<String, String> environment) {
        return "true".equalsIgnoreCase(environment.get("DISABLE_JEMALLOC"));
    }

    /** {@link #nativeMemoryEnv(Map, List)} for this machine, chosen once (and said once when jemalloc is missing). */
    Map<String, String> nativeMemoryEnv() {
        if (nativeMemoryEnv == null) {
            nativeMemoryEnv = nativeMemoryEnv(System.getenv(), JEMALLOC);
            if (nativeMemoryEnv.containsKey("MALLOC_ARENA_MAX") && !jemallocDisabled(System.getenv())) {
                Ckc.say("no jemalloc here (apt-get install libjemalloc2): Flink and Kafka run on glibc's malloc, under"
                        + " which RocksDB's native memory creeps up by tens of MB an hour");
            }
        }
        return nativeMemoryEnv;
    }

    /**
     * Each JVM logs its garbage-collection pauses (wall clock and uptime), so a latency spike can be laid
     * beside the pauses of every process on the path.
     */
    public String gcLog(String name) {
        return "-Xlog:gc:file=" + home.logs.resolve(name + "-gc.log") + ":time,uptime:filecount=2,filesize=10m";
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Ckc.Failure("interrupted");
        }
    }
}
