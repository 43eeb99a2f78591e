package io.ckc.jobs.state;

import org.apache.flink.state.rocksdb.RocksDBOptionsFactory;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

import java.util.Collection;

/**
 * RocksDB options of the CKC jobs ({@code state.backend.rocksdb.options-factory} in the configuration of record):
 * the MANIFEST rolls over at {@link #MAX_MANIFEST_BYTES}. Why: RocksDB appends a record to it at every flush and
 * compaction, and a checkpoint forces a flush of every state, so the MANIFEST grows with time, not with state
 * (RocksDB's default limit is 1 GB); an incremental checkpoint carries it whole. The PoA manager's two MANIFESTs
 * were 230 and 223 KB after 30 minutes of the soak while its state (a savepoint) was 82 KB, and its checkpoints
 * grew 0.93 MB an hour at a constant fleet. A roll-over writes a new MANIFEST with the current files only.
 */
public final class BoundedManifest implements RocksDBOptionsFactory {

    /**
     * Small enough that the MANIFEST of every CKC job rolls over within the hour (the echo job's grew 1.5 KB a minute,
     * the delivery job's busiest 3 KB, the PoA manager's 6-7 KB, a soak of 2026-11-28), large beside what a roll-over
     * writes for states of a few hundred files. At 256 KB the echo and delivery jobs' MANIFESTs only grew through an
     * hour's soak, and their checkpoints with them (+0.37 and +0.45 MB an hour, 2026-11-27).
     */
    public static final long MAX_MANIFEST_BYTES = 64 * 1024;

    @Override
    public DBOptions createDBOptions(DBOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        return currentOptions.setMaxManifestFileSize(MAX_MANIFEST_BYTES);
    }

    @Override
    public ColumnFamilyOptions createColumnOptions(ColumnFamilyOptions currentOptions,
                                                   Collection<AutoCloseable> handlesToClose) {
        return currentOptions;
    }
}
