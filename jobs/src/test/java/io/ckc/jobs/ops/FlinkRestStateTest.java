package io.ckc.jobs.ops;

import io.ckc.testing.Await;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code perf soak} reads of a job's state: the latest checkpoint's size, RocksDB's live data and its memory (block
 * cache and memtables); on RocksDB set up
 * as the configuration of record sets it up (its options factory loads from the job's classes).
 */
class FlinkRestStateTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(Configuration.fromMap(Map.of(
                    "state.backend.type", "rocksdb",
                    "state.backend.rocksdb.metrics.estimate-live-data-size", "true",
                    "state.backend.rocksdb.metrics.block-cache-usage", "true",
                    "state.backend.rocksdb.metrics.cur-size-all-mem-tables", "true",
                    "state.backend.rocksdb.options-factory", io.ckc.jobs.state.BoundedManifest.class.getName(),
                    "execution.checkpointing.interval", "1s",
                    "metrics.fetcher.update-interval", "500")))
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    /** Keeps a counter per key: state that RocksDB flushes at each checkpoint. */
    private static final class CountPerKey extends KeyedProcessFunction<Long, Long, Long> {
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(Long n, Context ctx, Collector<Long> out) throws IOException {
            Long seen = count.value();
            count.update(seen == null ? 1 : seen + 1);
        }
    }

    @Test
    void aJobsLiveRocksDbDataAndCheckpointSizeAreReadByName(@InjectClusterClient RestClusterClient<?> client)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(1_000); // a checkpoint flushes RocksDB's memtables: live data is counted in its files
        env.fromSource(new DataGeneratorSource<>(n -> n, Long.MAX_VALUE, RateLimiterStrategy.perSecond(1_000), Types.LONG),
                        WatermarkStrategy.noWatermarks(), "numbers")
                .keyBy(n -> n % 5_000).process(new CountPerKey()).uid("count")
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("ckc-state-probe");
        try {
            FlinkRest rest = new FlinkRest(client.getWebInterfaceURL());
            Await.until("the probe's live state reported", 60, () -> sizeOf(rest, true) > 0);
            Await.until("a checkpoint of it completed", 60, () -> sizeOf(rest, false) > 0);
            assertThat(rest.liveStateSizes()).containsOnlyKeys("ckc-state-probe");
            Await.until("its RocksDB's memory reported", 60, () -> memoryOf(rest) > 0);
            assertThat(rest.rocksDbMemory()).as("by TaskManager: the cluster's one").hasSize(1);
            assertThat(rest.pendingRecords()).as("no Kafka source, no backlog reported").doesNotContainKey("ckc-state-probe");
        } finally {
            job.cancel().get();
        }
    }

    private static long memoryOf(FlinkRest rest) {
        try {
            return rest.rocksDbMemory().values().stream().mapToLong(Long::longValue).sum(); // one TaskManager: the probe's
        } catch (IOException e) {
            return 0;
        }
    }

    private static long sizeOf(FlinkRest rest, boolean live) {
        try {
            return (live ? rest.liveStateSizes() : rest.stateSizes()).getOrDefault("ckc-state-probe", 0L);
        } catch (IOException e) {
            return 0;
        }
    }
}
