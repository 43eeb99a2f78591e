package io.ckc.jobs;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Each job keeps its checkpoints and savepoints in a folder of its own name under the cluster's
 * ({@code <checkpoints>/ckc-delivery/<job id>/chk-N}), so that its latest state can be found again by name after the
 * cluster forgot the job: a JobManager restarted without high availability knows no job ids, and the next
 * {@code submit} resumes each job from what it finds here ({@link #latest}). A deployment that names a folder per job
 * already (k8s/flink) is left as it is.
 */
public final class JobDirectories {

    private static final String METADATA = "_metadata";

    private JobDirectories() {
    }

    /** Sets the job's checkpoint and savepoint folders to its own under the configured ones. */
    public static void applyTo(StreamExecutionEnvironment env, String jobName) {
        ReadableConfig config = env.getConfiguration();
        Configuration own = new Configuration();
        config.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY)
                .ifPresent(dir -> own.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, of(dir, jobName)));
        config.getOptional(CheckpointingOptions.SAVEPOINT_DIRECTORY)
                .ifPresent(dir -> own.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, of(dir, jobName)));
        env.configure(own);
    }

    /** The job's folder under {@code dir}: dir itself when it is the job's already. */
    static String of(String dir, String jobName) {
        String trimmed = dir.endsWith("/") ? dir.substring(0, dir.length() - 1) : dir;
        return trimmed.endsWith("/" + jobName) ? trimmed : trimmed + "/" + jobName;
    }

    /**
     * The newest complete checkpoint or savepoint of the job (the folder holding its {@code _metadata}) under the
     * cluster's checkpoint and savepoint folders, either of which may be null; empty when there is none. Local
     * folders only ({@code file:} or a path): another file system is not looked into.
     */
    public static Optional<String> latest(String checkpoints, String savepoints, String jobName) {
        return Stream.of(checkpoints, savepoints)
                .map(dir -> local(dir, jobName))
                .flatMap(Optional::stream)
                .flatMap(JobDirectories::metadataFolders)
                .max(Comparator.comparing(JobDirectories::modified))
                .map(folder -> folder.toUri().toString());
    }

    private static Optional<Path> local(String dir, String jobName) {
        if (dir == null || dir.isBlank()) {
            return Optional.empty();
        }
        URI uri = URI.create(of(dir, jobName));
        if (uri.getScheme() != null && !uri.getScheme().equals("file")) {
            return Optional.empty();
        }
        Path path = uri.getScheme() == null ? Path.of(uri.getPath()) : Path.of(uri);
        return Files.isDirectory(path) ? Optional.of(path) : Optional.empty();
    }

    /** Folders under {@code root}, three levels at most (job id / chk-N), that hold a {@code _metadata}. */
    private static Stream<Path> metadataFolders(Path root) {
        try (Stream<Path> files = Files.find(root, 3, (path, attributes) -> attributes.isRegularFile()
                && path.getFileName().toString().equals(METADATA))) {
            return files.map(Path::getParent).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look for checkpoints in " + root, e);
        }
    }

    private static FileTime modified(Path folder) {
        try {
            return Files.getLastModifiedTime(folder.resolve(METADATA));
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }
}
