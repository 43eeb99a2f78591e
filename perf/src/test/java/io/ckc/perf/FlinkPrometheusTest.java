package io.ckc.perf;

import io.ckc.testing.Await;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@code perf soak} reads of a job's state: the latest checkpoint's size, RocksDB's live data and its memory (block
 * cache and memtables); on RocksDB set up as the configuration of record sets it up (its options factory loads from the
 * job's classes); read from Flink's Prometheus reporter, not from the REST API ({@link FlinkPrometheus}).
 */
class FlinkPrometheusTest {

    private static final int PORT = freePort();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(Configuration.fromMap(Map.of(
                    "state.backend.type", "rocksdb",
                    "state.backend.rocksdb.metrics.estimate-live-data-size", "true",
                    "state.backend.rocksdb.metrics.block-cache-usage", "true",
                    "state.backend.rocksdb.metrics.cur-size-all-mem-tables", "true",
                    "state.backend.rocksdb.options-factory", io.ckc.jobs.state.BoundedManifest.class.getName(),
                    "execution.checkpointing.interval", "1s",
                    "metrics.reporter.prom.factory.class", "org.apache.flink.metrics.prometheus.PrometheusReporterFactory",
                    "metrics.reporter.prom.port", String.valueOf(PORT))))
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
    void aJobsLiveRocksDbDataAndCheckpointSizeAreReadByName() throws Exception {
        JobClient job = startProbe("ckc-state-probe");
        try {
            FlinkPrometheus reporters = new FlinkPrometheus("127.0.0.1", PORT - 1, PORT + 1);
            Await.until("the probe's live state reported", 60, () -> sizeOf(reporters, true) > 0);
            Await.until("a checkpoint of it completed", 60, () -> sizeOf(reporters, false) > 0);
            assertThat(reporters.liveStateSizes()).as("named as submitted, '-' and all").containsOnlyKeys("ckc-state-probe");
            Await.until("its RocksDB's memory reported", 60, () -> memoryOf(reporters) > 0);
            assertThat(reporters.rocksDbMemory()).as("by TaskManager: the cluster's one").hasSize(1);
            assertThat(reporters.pendingRecords()).as("no Kafka source, no backlog reported")
                    .doesNotContainKey("ckc-state-probe");
        } finally {
            job.cancel().get();
        }
    }

    @Test
    void noReporterOnTheRangeIsAClearError() throws IOException {
        int nothing = freePort();
        assertThatThrownBy(() -> new FlinkPrometheus("127.0.0.1", nothing, nothing).stateSizes())
                .isInstanceOf(IOException.class).hasMessageContaining("no Flink Prometheus reporter on 127.0.0.1:" + nothing);
    }

    /** A job that counts per key at 1,000 numbers a second, checkpointed each second. */
    private static JobClient startProbe(String name) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(1_000); // a checkpoint flushes RocksDB's memtables: live data is counted in its files
        env.fromSource(new DataGeneratorSource<>(n -> n, Long.MAX_VALUE, RateLimiterStrategy.perSecond(1_000), Types.LONG),
                        WatermarkStrategy.noWatermarks(), "numbers")
                .keyBy(n -> n % 5_000).process(new CountPerKey()).uid("count")
                .sinkTo(new DiscardingSink<>());
        return env.executeAsync(name);
    }

    private static long memoryOf(FlinkPrometheus reporters) {
        try {
            return reporters.rocksDbMemory().values().stream().mapToLong(Long::longValue).sum();
        } catch (IOException e) {
            return 0;
        }
    }

    private static long sizeOf(FlinkPrometheus reporters, boolean live) {
        try {
            return (live ? reporters.liveStateSizes() : reporters.stateSizes()).getOrDefault("ckc-state-probe", 0L);
        } catch (IOException e) {
            return 0;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
