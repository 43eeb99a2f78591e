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

    /** Large enough that it rolls over a few times an hour here, small beside the state of a loaded job. */
    public static final long MAX_MANIFEST_BYTES = 256 * 1024;

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
