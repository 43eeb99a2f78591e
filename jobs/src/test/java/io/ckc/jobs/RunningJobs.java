package io.ckc.jobs;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * CKC jobs started on the test's MiniCluster, each checkpointing every second into its own retained
 * directory, so a test can cancel a job and start it again from its latest checkpoint, as an
 * operator would after a crash, or stop it with a savepoint and start it again at another
 * parallelism. Closing cancels them all.
 */
final class RunningJobs implements AutoCloseable {

    /** The MiniCluster these tests run their jobs on: one TaskManager with four slots. */
    static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(4).build());
    }

    /** Adds a job's operators to an environment. */
    interface JobBuilder {
        void build(StreamExecutionEnvironment env) throws Exception;
    }

    private final Map<String, JobClient> clients = new LinkedHashMap<>();
    private final Path checkpoints;

    RunningJobs() throws IOException {
        checkpoints = Files.createTempDirectory("ckc-it-checkpoints");
    }

    RunningJobs start(String name, JobBuilder job) throws Exception {
        clients.put(name, submit(name, job, null));
        return this;
    }

    /**
     * Waits for a checkpoint newer than the call, cancels the job, and starts it again from that
     * checkpoint. Returns the checkpoint it restored.
     */
    Path restartFromLatestCheckpoint(String name, JobBuilder job, long timeoutMs) throws Exception {
        JobClient running = clients.get(name);
        Path jobDir = checkpoints.resolve(name).resolve(running.getJobID().toHexString());
        long since = System.currentTimeMillis();
        long deadline = since + timeoutMs;
        Optional<Path> latest = latestCheckpoint(jobDir, since);
        while (latest.isEmpty()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("no checkpoint of " + name + " within " + timeoutMs + " ms");
            }
            Thread.sleep(100);
            latest = latestCheckpoint(jobDir, since);
        }
        running.cancel().get(30, TimeUnit.SECONDS);
        clients.put(name, submit(name, job, latest.get()));
        return latest.get();
    }

    /**
     * Stops the job with a savepoint and starts it again from that savepoint, built by {@code job} (at
     * its new parallelism, say), as {@code ./ckc rescale} does on a cluster. Returns the savepoint.
     */
    Path rescaleFromSavepoint(String name, JobBuilder job) throws Exception {
        JobClient running = clients.get(name);
        String savepoint = null;
        long deadline = System.currentTimeMillis() + 60_000;
        while (savepoint == null) {
            try {
                savepoint = running.stopWithSavepoint(false, checkpoints.resolve(name + "-savepoints").toUri().toString(),
                        SavepointFormatType.CANONICAL).get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                // A job just (re)started takes a savepoint only once all its tasks run: ask again.
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
        Path path = Path.of(java.net.URI.create(savepoint));
        clients.put(name, submit(name, job, path));
        return path;
    }

    private JobClient submit(String name, JobBuilder job, Path restoreFrom) throws Exception {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.resolve(name).toUri().toString());
        conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        if (restoreFrom != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom.toUri().toString());
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.enableCheckpointing(1_000);
        job.build(env);
        return env.executeAsync(name);
    }

    /** The newest completed checkpoint (one with its _metadata written) finished after {@code since}. */
    private static Optional<Path> latestCheckpoint(Path jobDir, long since) throws IOException {
        if (!Files.isDirectory(jobDir)) {
            return Optional.empty();
        }
        try (Stream<Path> dirs = Files.list(jobDir)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("chk-"))
                    .filter(d -> {
                        Path metadata = d.resolve("_metadata");
                        try {
                            return Files.exists(metadata) && Files.getLastModifiedTime(metadata).toMillis() > since;
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .max(Comparator.comparingInt(d -> Integer.parseInt(d.getFileName().toString().substring(4))));
        }
    }

    /** For diagnostics when a test fails: each job's status. */
    String status() throws Exception {
        StringBuilder out = new StringBuilder();
        for (var entry : clients.entrySet()) {
            out.append(entry.getKey()).append(' ').append(entry.getValue().getJobStatus().get()).append('\n');
        }
        return out.toString();
    }

    @Override
    public void close() throws Exception {
        List<Exception> failures = new ArrayList<>();
        for (JobClient client : clients.values()) {
            try {
                client.cancel().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }
}
