package io.ckc.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.assertj.core.api.Assertions.assertThat;

/** Where a job's state is found again by its name. */
class JobDirectoriesTest {

    @Test
    void aJobsFolderIsItsNameUnderTheClustersUnlessTheDeploymentNamedItAlready() {
        assertThat(JobDirectories.of("file:///flink-data/checkpoints", "ckc-delivery"))
                .isEqualTo("file:///flink-data/checkpoints/ckc-delivery");
        assertThat(JobDirectories.of("file:///flink-data/checkpoints/ckc-delivery/", "ckc-delivery"))
                .isEqualTo("file:///flink-data/checkpoints/ckc-delivery");
    }

    @Test
    void theLatestIsTheNewestCompleteCheckpointOrSavepointOfThatJobOnly(@TempDir Path dir) throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        Path savepoints = dir.resolve("savepoints");
        Path older = metadata(checkpoints.resolve("ckc-delivery/aaaa/chk-7"), 1_000);
        Path newer = metadata(savepoints.resolve("ckc-delivery/savepoint-aaaa-1"), 2_000);
        metadata(checkpoints.resolve("ckc-echo/bbbb/chk-9"), 3_000);
        Files.createDirectories(checkpoints.resolve("ckc-delivery/cccc/chk-8")); // being written: no _metadata yet

        assertThat(JobDirectories.latest(checkpoints.toUri().toString(), savepoints.toUri().toString(), "ckc-delivery"))
                .contains(newer.toUri().toString());
        assertThat(JobDirectories.latest(checkpoints.toUri().toString(), null, "ckc-delivery"))
                .contains(older.toUri().toString());
        assertThat(JobDirectories.latest(checkpoints.toString(), null, "ckc-poa-manager")).isEmpty();
        assertThat(JobDirectories.latest("s3://bucket/checkpoints", null, "ckc-delivery")).as("not looked into").isEmpty();
    }

    private static Path metadata(Path folder, long modifiedMs) throws Exception {
        Files.createDirectories(folder);
        Path file = Files.writeString(folder.resolve("_metadata"), "state");
        Files.setLastModifiedTime(file, FileTime.fromMillis(modifiedMs));
        return folder;
    }
}
