package io.ckc.jobs.state;

import org.junit.jupiter.api.Test;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

import java.util.ArrayList;

import static org.assertj.core.api.Assertions.assertThat;

class BoundedManifestTest {

    @Test
    void theManifestRollsOverAt64KbNotAt1Gb() {
        RocksDB.loadLibrary();
        try (DBOptions defaults = new DBOptions()) {
            assertThat(defaults.maxManifestFileSize()).as("RocksDB's own limit").isEqualTo(1024L * 1024 * 1024);
            DBOptions ours = new BoundedManifest().createDBOptions(defaults, new ArrayList<>());
            assertThat(ours.maxManifestFileSize()).isEqualTo(64 * 1024);
        }
    }
}
