package io.ckc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class FlinkRuntimeTest {

    @Test
    void removingTheScratchSpaceRemovesRocksDbsLogFilesAndKeepsFlinksOwn(@TempDir Path root) throws Exception {
        Home home = new Home(root);
        Files.createDirectories(home.logs);
        Path rocksDbLog = Files.writeString(home.logs.resolve(
                "dev_shm_ckc-rocksdb-1_job_00ab_op_KeyedProcessOperator_5582__1_1__uuid_0c08_db_LOG"), "rocksdb");
        Path rocksDbOldLog = Files.writeString(home.logs.resolve(
                "dev_shm_ckc-rocksdb-1_job_00ab_op_KeyedProcessOperator_5582__1_1__uuid_0c08_db_LOG.old.1"), "rocksdb");
        Path jobManagerLog = Files.writeString(home.logs.resolve("flink-jobmanager.log"), "flink");

        new FlinkRuntime(home, new Processes(home)).removeScratch();

        assertThat(rocksDbLog).doesNotExist();
        assertThat(rocksDbOldLog).doesNotExist();
        assertThat(jobManagerLog).exists();
    }
}
