package io.ckc.cli;

import io.ckc.jobs.JobCatalog;
import io.ckc.jobs.ops.ClusterJobsJar;
import io.ckc.jobs.ops.FlinkRest;
import org.apache.flink.util.ParameterTool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Flink for the stack: the configuration of record ({@code runtime/flink/conf}) with this checkout's
 * directories, an embedded MiniCluster running the job catalog's jobs, or a standalone session cluster
 * (a JobManager and a TaskManager process) from the Maven Central jars.
 */
final class FlinkRuntime {

    static final int EMBEDDED_REST_PORT = 8082;
    static final int CLUSTER_REST_PORT = 8081;
    static final String EMBEDDED_URL = "http://127.0.0.1:" + EMBEDDED_REST_PORT;
    static final String CLUSTER_URL = "http://127.0.0.1:" + CLUSTER_REST_PORT;
    /** The JDK 17 flags Flink's own scripts pass. */
    static final List<String> JAVA_OPENS = List.of("--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED",
            "--add-exports=java.base/sun.net.util=ALL-UNNAMED", "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED");
    /**
     * What the adaptive scheduler needs to rescale a running job in place. It restarts from the latest
     * checkpoint; FLIP-461 makes it wait for the next one first, up to rescale-trigger.max-delay. The rescale
     * command triggers that checkpoint at once, so the restart follows it within a second or two and replays
     * next to nothing; 30 s bounds the wait if checkpoints fail. A job rescaled down gives its idle slots back after
     * 5 s, not Flink's 50: a blue/green successor started after an in-place rescale from 2 to 1 waited 12.5 s for a
     * slot the job kept, then 3.2 s with this (one TaskManager of 6 slots, 2026-12-05).
     */
    static final List<String> ADAPTIVE = List.of("jobmanager.scheduler: adaptive",
            "jobmanager.adaptive-scheduler.executing.cooldown-after-rescaling: 1s",
            "jobmanager.adaptive-scheduler.executing.resource-stabilization-timeout: 1s",
            "jobmanager.adaptive-scheduler.rescale-trigger.max-delay: 30s",
            "slot.idle.timeout: 5 s");

    /**
     * The standalone cluster loads classes parent-first: the jobs jar is on its processes' classpath
     * ({@link ClusterJobsJar}), and a job's classes must come from there, not again from the jar it was submitted in.
     */
    static final List<String> CLUSTER = List.of("classloader.resolve-order: parent-first");

    private static final String TASKMANAGER = "flink-taskmanager";

    private final Home home;
    private final Processes processes;

    FlinkRuntime(Home home, Processes processes) {
        this.home = home;
        this.processes = processes;
    }

    /** The configuration of record in {@code dir}, with this checkout's checkpoint, savepoint and RocksDB directories. */
    void writeConf(Path dir, List<String> extra) {
        try {
            Files.createDirectories(dir);
            Files.createDirectories(checkpointDir());
            Path conf = home.root.resolve("runtime/flink/conf");
            Files.copy(conf.resolve("config.yaml"), dir.resolve("config.yaml"), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(conf.resolve("log4j.properties"), dir.resolve("log4j.properties"),
                    StandardCopyOption.REPLACE_EXISTING);
            List<String> lines = new ArrayList<>();
            lines.add("execution.checkpointing.dir: file://" + checkpointDir());
            lines.add("execution.checkpointing.savepoint-dir: file://" + savepointDir());
            rocksDbLocalDir().ifPresent(d -> lines.add("state.backend.rocksdb.localdir: " + d));
            lines.addAll(extra);
            Files.write(dir.resolve("config.yaml"), lines, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path savepointDir() {
        return home.state.resolve("flink/savepoints");
    }

    Path checkpointDir() {
        return home.state.resolve("flink/checkpoints");
    }

    /**
     * Removes the checkpoints the jobs of an earlier stack left (a job's last one outlives it, for a submit that
     * resumes: runtime/flink/conf/config.yaml): a new stack has a new Kafka, whose offsets they do not know.
     */
    void clearCheckpoints() {
        Ckc.deleteTree(checkpointDir());
    }

    /**
     * RocksDB's working directory: CKC_ROCKSDB_LOCAL_DIR, else a directory in /dev/shm when that tmpfs has
     * 2 GiB free, else Flink's default. Why memory: at each checkpoint RocksDB flushes its memtables to files
     * and syncs them on the task's own thread, and on this machine's disk those syncs held the delivery job's
     * routing for a median 34 ms (up to 167) every 10 s, 11 ms in memory. It is scratch space either way: a job
     * recovers from its checkpoints, which stay on disk.
     */
    java.util.Optional<Path> rocksDbLocalDir() {
        String chosen = System.getenv("CKC_ROCKSDB_LOCAL_DIR");
        if (chosen != null && !chosen.isBlank()) {
            return java.util.Optional.of(Path.of(chosen));
        }
        Path shm = Path.of("/dev/shm");
        try {
            FileStore store = Files.getFileStore(shm);
            if (Files.isWritable(shm) && store.getUsableSpace() >= 2L << 30) {
                return java.util.Optional.of(shmDir());
            }
        } catch (IOException e) {
            // no /dev/shm: Flink's default
        }
        return java.util.Optional.empty();
    }

    Path shmDir() {
        return Path.of("/dev/shm", "ckc-rocksdb-" + Integer.toUnsignedString(home.root.toString().hashCode()));
    }

    /**
     * Removes RocksDB's scratch space in memory, once no Flink of this checkout runs, and the LOG files RocksDB wrote
     * beside Flink's logs for it: one set per state instance, named after its directory, so every restore of a job
     * added new ones and none went away (301 files, 150 MB after a day of fault runs).
     */
    void removeScratch() {
        Ckc.deleteTree(shmDir());
        try (var logs = Files.list(home.logs)) {
            for (Path log : logs.filter(f -> f.getFileName().toString().contains("_db_LOG")).toList()) {
                Files.deleteIfExists(log);
            }
        } catch (java.nio.file.NoSuchFileException none) {
            // no logs yet
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The MiniCluster with the stack's jobs, its own process; returns once every job runs. */
    void startEmbedded(StackShape shape) {
        Path conf = home.state.resolve("flink/embedded-conf");
        writeConf(conf, List.of());
        List<String> command = new ArrayList<>(List.of("java", "-Xms1536m", "-Xmx1536m", "-XX:+UseG1GC",
                Processes.PRE_TOUCH_HEAP, processes.gcLog("flink-embedded")));
        command.addAll(JAVA_OPENS);
        command.addAll(List.of("-Dlog.file=" + home.log("flink-embedded-runtime"),
                "-Dlog4j.configurationFile=file:" + conf.resolve("log4j.properties"),
                "-cp", home.libClasspath("flink") + ":" + home.jobsJar(), "io.ckc.jobs.EmbeddedFlink",
                "--conf-dir", conf.toString(), "--rest-port", String.valueOf(EMBEDDED_REST_PORT)));
        command.addAll(shape.stackFlags());
        processes.start("flink-embedded", home.log("flink-embedded"), processes.nativeMemoryEnv(), command);
        processes.awaitLog("flink-embedded", home.log("flink-embedded"), "CKC embedded Flink ready", Duration.ofSeconds(120));
        awaitJobsRunning(EMBEDDED_URL, jobCount(shape));
    }

    static int jobCount(StackShape shape) {
        return JobCatalog.stack(ParameterTool.fromArgs(shape.stackFlags().toArray(String[]::new))).size();
    }

    static void awaitJobsRunning(String url, int count) {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        FlinkRest rest = new FlinkRest(url);
        while (System.nanoTime() < deadline) {
            try {
                if (rest.runningJobs() >= count) {
                    return;
                }
            } catch (IOException notYet) {
                // the REST API comes up with the cluster
            }
            Processes.sleep(200);
        }
        throw new Ckc.Failure("Flink jobs not running after 120 s at " + url);
    }

    /**
     * A standalone session cluster: a JobManager and {@code taskManagers} TaskManager processes; with {@code adaptive},
     * in-place rescaling. The jobs spread over the TaskManagers (config.yaml), each keeping free slots: when one dies, its
     * jobs restart at once in the other's free slots instead of waiting for a new process to start and register (about
     * 10 s here).
     */
    void startCluster(boolean adaptive, int taskManagers) {
        if (taskManagers < 1) {
            throw new Ckc.Failure("--taskmanagers must be at least 1, not " + taskManagers);
        }
        String jobsJar = clusterJobsJarName();
        if (processes.isRunning("flink-jobmanager")) {
            if (Files.exists(clusterLib().resolve(jobsJar))) {
                int running = runningTaskManagers().size();
                Ckc.say("Flink cluster already running: " + CLUSTER_URL + " (" + running + " TaskManager"
                        + (running == 1 ? "" : "s") + ")");
                return;
            }
            Ckc.say("the jobs jar changed since the Flink cluster started: restarting it");
            stopCluster();
        }
        if (Processes.portOpen(CLUSTER_REST_PORT)) {
            throw new Ckc.Failure("port " + CLUSTER_REST_PORT + " is taken");
        }
        copyJobsJarToClusterLib(jobsJar);
        Path conf = home.state.resolve("flink/cluster-conf");
        List<String> extra = new ArrayList<>(CLUSTER);
        if (adaptive) {
            extra.addAll(ADAPTIVE);
        }
        writeConf(conf, extra);
        startClusterProcess("flink-jobmanager", "GET_JM_RESOURCE_PARAMS",
                "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint", conf);
        List<String> names = new ArrayList<>(List.of("flink-jobmanager"));
        for (int i = 1; i <= taskManagers; i++) {
            String name = taskManagerName(i);
            startTaskManager(name, conf);
            names.add(name);
        }
        FlinkRest rest = new FlinkRest(CLUSTER_URL);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            if (rest.taskManagers() >= taskManagers) {
                Ckc.say("Flink cluster ready: web UI and REST on " + CLUSTER_URL + " (" + String.join(", ",
                        names.stream().map(n -> n + " pid " + processes.pid(n).orElse(-1L)).toList()) + ")");
                return;
            }
            for (String name : names) {
                if (!processes.isRunning(name)) {
                    throw new Ckc.Failure(name + " exited (log: " + home.log(name) + ")");
                }
            }
            Processes.sleep(200);
        }
        throw new Ckc.Failure("Flink cluster not ready after 120 s");
    }

    /** Where the standalone cluster's copy of the jobs jar is: its processes' own classpath. */
    private Path clusterLib() {
        return home.state.resolve("flink/cluster-lib");
    }

    private String clusterJobsJarName() {
        try {
            return ClusterJobsJar.nameOf(home.jobsJar());
        } catch (IOException e) {
            throw new Ckc.Failure("no jobs jar at " + home.jobsJar() + ": " + e.getMessage());
        }
    }

    /** A copy, not the build's jar: a rebuild must not change the jar under the running processes. */
    private void copyJobsJarToClusterLib(String name) {
        try {
            Ckc.deleteTree(clusterLib());
            Files.createDirectories(clusterLib());
            Files.copy(home.jobsJar(), clusterLib().resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The process name of the cluster's {@code i}-th TaskManager (from 1), also its resource id in the cluster. */
    static String taskManagerName(int i) {
        return i == 1 ? TASKMANAGER : TASKMANAGER + "-" + i;
    }

    /** The TaskManagers of the standalone cluster that run now, by process name. */
    List<String> runningTaskManagers() {
        return processes.known().stream().filter(FlinkRuntime::isTaskManager).filter(processes::isRunning).toList();
    }

    private static boolean isTaskManager(String processName) {
        return processName.equals(TASKMANAGER) || processName.startsWith(TASKMANAGER + "-");
    }

    /** A TaskManager whose resource id is its process name, so the cluster's view of it names the process. */
    private void startTaskManager(String name, Path conf) {
        startClusterProcess(name, "GET_TM_RESOURCE_PARAMS", "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                conf, List.of("-D", "taskmanager.resource-id=" + name));
    }

    /**
     * One cluster process with the JVM memory flags and dynamic properties Flink's own scripts compute
     * ({@code BashJavaUtils}, as {@code bin/jobmanager.sh} and {@code bin/taskmanager.sh} call it).
     */
    private void startClusterProcess(String name, String resourceQuery, String mainClass, Path conf) {
        startClusterProcess(name, resourceQuery, mainClass, conf, List.of());
    }

    private void startClusterProcess(String name, String resourceQuery, String mainClass, Path conf,
                                     List<String> dynamicProperties) {
        String printed = Ckc.runForOutput(List.of("java", "-cp", home.libClasspath("flink"),
                "org.apache.flink.runtime.util.bash.BashJavaUtils", resourceQuery, "--configDir", conf.toString()));
        List<String> results = printed.lines().filter(l -> l.startsWith("BASH_JAVA_UTILS_EXEC_RESULT:"))
                .map(l -> l.substring("BASH_JAVA_UTILS_EXEC_RESULT:".length())).toList();
        if (results.size() < 2) {
            throw new Ckc.Failure("Flink's BashJavaUtils did not give the " + name + "'s resources:\n" + printed);
        }
        List<String> command = new ArrayList<>(List.of("java"));
        command.addAll(words(results.get(0)));
        command.add(Processes.PRE_TOUCH_HEAP);
        command.addAll(JAVA_OPENS);
        command.addAll(List.of("-Dlog.file=" + home.log(name), "-Dlog4j.configurationFile=file:" + conf.resolve("log4j.properties"),
                "-cp", home.libClasspath("flink") + ":" + clusterLib() + "/*", mainClass, "--configDir", conf.toString()));
        command.addAll(words(results.get(1)));
        command.addAll(dynamicProperties);
        processes.start(name, home.logs.resolve(name + ".out"), processes.nativeMemoryEnv(), command);
    }

    /** A TaskManager killed: its name, and when its jobs ran again on another (-1: there was none). */
    record Killed(String name, long jobsBackMs) {
    }

    /**
     * {@code kill -9} of the standalone cluster's TaskManager that runs the most tasks, then a new one started under
     * its name; returns once that has registered with the JobManager. With another TaskManager, the new one starts
     * only once every job runs again in the other's slots (at most 60 s): a JVM starting on this 2-core machine
     * slowed the jobs' restore by seconds, and a deployment replaces a lost process while the others serve.
     */
    Killed killTaskManager(FlinkRest rest) {
        List<String> running = runningTaskManagers();
        if (running.isEmpty()) {
            throw new Ckc.Failure("no TaskManager runs: ./ckc flink-cluster start");
        }
        String name = busiest(running, rest);
        ProcessHandle process = processes.pid(name).flatMap(ProcessHandle::of).orElseThrow();
        long killedAt = System.nanoTime();
        long killedAtMs = System.currentTimeMillis();
        process.destroyForcibly();
        process.onExit().join();
        Path log = home.log(name);
        try {
            // The new one's registration must not be read off the old one's log, which stays for a reader (the last
            // kill's).
            if (Files.exists(log)) {
                Files.move(log, home.logs.resolve(name + ".killed.log"), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long jobsBackMs = -1;
        if (running.size() > 1) {
            long deadline = killedAt + Duration.ofSeconds(60).toNanos();
            // Back: every task runs, and a job restarted after the kill (its tasks read as running until the
            // JobManager notices the loss, and a restart of a second or two can fall between two polls).
            while (!rest.ckcJobsBackSince(killedAtMs) && System.nanoTime() < deadline) {
                Processes.sleep(250);
            }
            jobsBackMs = (System.nanoTime() - killedAt) / 1_000_000;
        }
        startTaskManager(name, home.state.resolve("flink/cluster-conf"));
        processes.awaitLog(name, log, "Successful registration at resource manager", Duration.ofSeconds(120));
        return new Killed(name, jobsBackMs);
    }

    /** Of the running TaskManagers, the one with the most slots taken (the first when the cluster does not say). */
    private static String busiest(List<String> running, FlinkRest rest) {
        Map<String, Integer> taken;
        try {
            taken = rest.slotsTaken();
        } catch (IOException e) {
            taken = Map.of();
        }
        String busiest = running.get(0);
        for (String name : running) {
            if (taken.getOrDefault(name, 0) > taken.getOrDefault(busiest, 0)) {
                busiest = name;
            }
        }
        return busiest;
    }

    void stopCluster() {
        processes.known().stream().filter(FlinkRuntime::isTaskManager).forEach(processes::stop);
        processes.stop("flink-jobmanager");
        if (!processes.isRunning("flink-embedded")) {
            removeScratch();
        }
        Ckc.say("Flink cluster stopped");
    }

    private static List<String> words(String line) {
        return java.util.Arrays.stream(line.trim().split("\\s+")).filter(w -> !w.isEmpty()).toList();
    }
}
