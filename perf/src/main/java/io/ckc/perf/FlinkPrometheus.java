package io.ckc.perf;

import io.ckc.perf.PrometheusText.Sample;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a soak samples of the Flink jobs, read from Flink's Prometheus reporter on the JobManager and each TaskManager
 * ({@code metrics.reporter.prom}, ports 9249-9259 in the configuration of record): each job's state size, RocksDB's live
 * data and memory, and the records its Kafka sources have yet to read. Jobs and TaskManagers are named as they are
 * started ({@code ckc-delivery}, {@code flink-taskmanager-2}): the reporter writes each {@code -} of a label as
 * {@code _}, and this reads it back as {@code -}.
 *
 * <p>Not from the REST API, because in Flink 2.2 every REST read makes the JobManager snapshot each job's checkpoint
 * statistics: {@code jobs/overview}, and each metrics fetch behind {@code jobs/<id>/metrics} (at most every
 * {@code metrics.fetcher.update-interval}), ask each job for its details, which {@code JobMasterServiceLeadershipRunner}
 * builds from a whole archived execution graph. The snapshot it keeps copies five histograms of up to the last 10,000
 * checkpoints ({@code CompletedCheckpointStatsSummary}, not configurable): 40 bytes more per checkpoint and job, until
 * 10,000 checkpoints (28 hours at one each 10 s), 400 KB a job then. A read a minute grew the JobManager's heap so in the
 * soaks up to 2026-11-29: in two heap dumps 27 minutes apart, taken at {@code 331ccff}, each job's snapshot was current
 * (it counted the checkpoints the job had completed) and its histograms held 25,920 bytes more, 4 jobs x 5 x 162
 * checkpoints x 8 bytes. The reporter reads the same gauges and histograms without building any of it.
 */
public final class FlinkPrometheus {

    /** The reporter's ports, as the configuration of record gives them ({@code metrics.reporter.prom.port}). */
    public static final int FIRST_PORT = 9249;
    public static final int LAST_PORT = 9259;

    static final String STATE_SIZE = "flink_jobmanager_job_lastCheckpointFullSize";
    static final String LIVE_DATA = "_rocksdb_estimate_live_data_size";
    static final String BLOCK_CACHE = "_rocksdb_block_cache_usage";
    static final String MEMTABLES = "_rocksdb_cur_size_all_mem_tables";
    static final String PENDING_RECORDS = "flink_taskmanager_job_task_operator_pendingRecords";

    private final String host;
    private final int firstPort;
    private final int lastPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** The reporters of the Flink processes on {@code host}, each on a port of {@code firstPort..lastPort}. */
    public FlinkPrometheus(String host, int firstPort, int lastPort) {
        this.host = host;
        this.firstPort = firstPort;
        this.lastPort = lastPort;
    }

    /**
     * The state size of each running job by name: the full size of its latest completed checkpoint (not the increment
     * an incremental checkpoint wrote); jobs without a completed checkpoint report -1 and are left out.
     */
    public Map<String, Long> stateSizes() throws IOException {
        Map<String, Long> sizes = new TreeMap<>();
        for (Sample sample : samples()) {
            if (sample.name().equals(STATE_SIZE) && sample.value() >= 0) {
                sizes.put(sample.named("job_name"), (long) sample.value());
            }
        }
        return sizes;
    }

    /**
     * RocksDB's estimate of the live data in each running job's keyed state, by job name, summed over its operators,
     * states and subtasks ({@code state.backend.rocksdb.metrics.estimate-live-data-size}): what the state holds, where a
     * checkpoint's size also counts the files RocksDB has not compacted yet. Jobs that report none are left out.
     */
    public Map<String, Long> liveStateSizes() throws IOException {
        return sumByJob(LIVE_DATA);
    }

    /**
     * The records each running job's Kafka sources have yet to read, by job name, summed over its sources and subtasks
     * (their {@code pendingRecords}): the job's own consumer lag. Its committed offsets trail this by up to a
     * checkpoint, since the source commits them only when a checkpoint completes.
     */
    public Map<String, Long> pendingRecords() throws IOException {
        Map<String, Long> sums = new TreeMap<>();
        for (Sample sample : samples()) {
            if (sample.name().equals(PENDING_RECORDS)) {
                sums.merge(sample.named("job_name"), (long) sample.value(), Long::sum);
            }
        }
        return sums;
    }

    /**
     * The native memory of RocksDB on each TaskManager, by its resource id (the process name {@code ./ckc} gives it):
     * the block caches in use plus the memtables of the job subtasks it runs ({@code state.backend.rocksdb.metrics.
     * block-cache-usage}, {@code cur-size-all-mem-tables}). Every state of a slot reports the one cache the slot's
     * states share, so a job's subtask counts its cache once (its largest report, over the job's operators too:
     * subtask i of each shares slot i); memtables are each state's own and add up. What a TaskManager's resident memory
     * holds beyond its heap is mostly this, a cache that fills up to the slot's share of managed memory and stays there.
     * TaskManagers that report neither are left out.
     */
    public Map<String, Long> rocksDbMemory() throws IOException {
        Map<String, Long> byTaskManager = new TreeMap<>();
        Map<List<String>, Long> cachePerSlot = new LinkedHashMap<>();
        for (Sample sample : samples()) {
            String taskManager = sample.named("tm_id");
            if (sample.name().endsWith(BLOCK_CACHE)) {
                cachePerSlot.merge(List.of(taskManager, sample.labels().getOrDefault("job_id", "?"),
                        sample.labels().getOrDefault("subtask_index", "?")), (long) sample.value(), Math::max);
            } else if (sample.name().endsWith(MEMTABLES)) {
                byTaskManager.merge(taskManager, (long) sample.value(), Long::sum);
            }
        }
        cachePerSlot.forEach((slot, bytes) -> byTaskManager.merge(slot.get(0), bytes, Long::sum));
        return byTaskManager;
    }

    private Map<String, Long> sumByJob(String suffix) throws IOException {
        Map<String, Long> sums = new TreeMap<>();
        for (Sample sample : samples()) {
            if (sample.name().endsWith(suffix)) {
                sums.merge(sample.named("job_name"), (long) sample.value(), Long::sum);
            }
        }
        return sums;
    }

    /**
     * Every sample of every reporter on the ports, read now: a process started again may have taken another port of
     * the range. Ports where nothing listens are skipped; none answering is an error (no Flink cluster there).
     */
    List<Sample> samples() throws IOException {
        List<Sample> samples = new ArrayList<>();
        int answered = 0;
        for (int port = firstPort; port <= lastPort; port++) {
            HttpResponse<String> response;
            try {
                response = http.send(HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + "/metrics"))
                        .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString(
                        StandardCharsets.UTF_8));
            } catch (ConnectException nothingThere) {
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            if (response.statusCode() == 200) {
                answered++;
                samples.addAll(PrometheusText.parse(response.body()));
            }
        }
        if (answered == 0) {
            throw new IOException("no Flink Prometheus reporter on " + host + ":" + firstPort + "-" + lastPort);
        }
        return samples;
    }
}
