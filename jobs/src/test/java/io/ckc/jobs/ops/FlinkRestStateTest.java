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

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code perf soak} reads of a job's state: the latest checkpoint's size, RocksDB's live data and its memory (block
 * cache and memtables); on RocksDB set up as the configuration of record sets it up (its options factory loads from the
 * job's classes); read from metrics, not from the job's execution graph each time.
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
        JobClient job = startProbe("ckc-state-probe");
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

    /**
     * Sampled again and again, as a soak samples each minute, the figures come from metrics: the job's execution graph
     * (its details, a vertex's subtasks, its checkpoint statistics) is read once at most, since each read of it makes
     * the JobManager keep a new snapshot of the job's checkpoint statistics, larger with every checkpoint.
     */
    @Test
    void sampledRepeatedlyTheJobsGraphIsReadOnce(@InjectClusterClient RestClusterClient<?> client) throws Exception {
        JobClient job = startProbe("ckc-state-probe-sampled");
        List<String> paths = new CopyOnWriteArrayList<>();
        HttpServer recorder = recordingProxy(client.getWebInterfaceURL(), paths);
        try {
            FlinkRest rest = new FlinkRest("http://127.0.0.1:" + recorder.getAddress().getPort());
            Await.until("its checkpoint and RocksDB's memory reported", 60,
                    () -> sizeOf(rest, false, "ckc-state-probe-sampled") > 0 && memoryOf(rest) > 0);
            paths.clear();
            for (int sample = 0; sample < 3; sample++) {
                rest.stateSizes();
                rest.liveStateSizes();
                rest.pendingRecords();
                rest.rocksDbMemory();
            }
            String id = job.getJobID().toHexString();
            assertThat(paths).as("the soak's reads, 3 samples").isNotEmpty()
                    .noneMatch(path -> path.startsWith("/jobs/" + id + "/checkpoints"))
                    .noneMatch(path -> path.equals("/jobs/" + id))
                    .noneMatch(path -> path.matches("/jobs/" + id + "/vertices/[0-9a-f]+"));
        } finally {
            recorder.stop(0);
            job.cancel().get();
        }
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

    /** An HTTP server that passes each GET on to {@code target} and records its path (and query). */
    private static HttpServer recordingProxy(String target, List<String> paths) throws IOException {
        HttpClient http = HttpClient.newHttpClient();
        String base = target.endsWith("/") ? target.substring(0, target.length() - 1) : target;
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            URI uri = exchange.getRequestURI();
            paths.add(uri.getPath());
            try {
                HttpResponse<byte[]> answer = http.send(HttpRequest.newBuilder(URI.create(base + uri.getRawPath()
                        + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()))).GET().build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                byte[] body = answer.body();
                exchange.sendResponseHeaders(answer.statusCode(), body.length == 0 ? -1 : body.length);
                exchange.getResponseBody().write(body);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                exchange.sendResponseHeaders(503, -1);
            } finally {
                exchange.close();
            }
        });
        server.start();
        return server;
    }

    private static long memoryOf(FlinkRest rest) {
        try {
            return rest.rocksDbMemory().values().stream().mapToLong(Long::longValue).sum(); // one TaskManager: the probe's
        } catch (IOException e) {
            return 0;
        }
    }

    private static long sizeOf(FlinkRest rest, boolean live) {
        return sizeOf(rest, live, "ckc-state-probe");
    }

    private static long sizeOf(FlinkRest rest, boolean live, String job) {
        try {
            return (live ? rest.liveStateSizes() : rest.stateSizes()).getOrDefault(job, 0L);
        } catch (IOException e) {
            return 0;
        }
    }
}
