package io.ckc.jobs.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The part of Flink's REST API the operator commands use: the jobs, their vertices and checkpoints,
 * savepoints (triggered, or stop-with-savepoint) and their asynchronous results. JSON in and out, no
 * Flink classes, so the commands run beside any cluster version that speaks this API.
 */
public final class FlinkRest {

    /**
     * A job as the commands show it; {@code maxParallelism} and {@code parallelism}: the largest over its
     * vertices; {@code tasksRunning}: every vertex runs (a job is RUNNING a moment before its tasks are).
     */
    public record Job(String name, String id, String state, int parallelism, int maxParallelism, Long lastCheckpointMs,
               String lastSavepoint, boolean tasksRunning) {
    }

    /** The end of an asynchronous savepoint: its path, or why it failed. */
    record Savepoint(String location, String failure) {
    }

    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper mapper = new ObjectMapper();

    public FlinkRest(String url) {
        this.base = URI.create(url.endsWith("/") ? url : url + "/");
    }

    String url() {
        return base.toString();
    }

    /** Every job the cluster knows, newest first, with its details. */
    public List<Job> jobs() throws IOException {
        List<Job> jobs = new ArrayList<>();
        for (JsonNode overview : get("jobs/overview").path("jobs")) {
            String id = overview.path("jid").asText();
            JsonNode detail = get("jobs/" + id);
            int parallelism = 0;
            int maxParallelism = 0;
            for (JsonNode vertex : detail.path("vertices")) {
                parallelism = Math.max(parallelism, vertex.path("parallelism").asInt());
                maxParallelism = Math.max(maxParallelism, vertex.path("maxParallelism").asInt());
            }
            JsonNode latest = checkpoints(id).path("latest");
            JsonNode completed = latest.path("completed");
            JsonNode savepoint = latest.path("savepoint");
            jobs.add(new Job(overview.path("name").asText(), id, overview.path("state").asText(), parallelism,
                    maxParallelism, completed.isObject() ? completed.path("latest_ack_timestamp").asLong() : null,
                    savepoint.isObject() ? savepoint.path("external_path").asText() : null, runs(detail, 0)));
        }
        jobs.sort((a, b) -> a.name().compareTo(b.name()));
        return jobs;
    }

    /** A job-level metric of {@code jobId} (the JobManager's, such as {@code numRestarts}); empty if not reported. */
    private OptionalLong jobMetric(String jobId, String name) throws IOException {
        JsonNode metric = get("jobs/" + jobId + "/metrics?get=" + name).path(0);
        return metric.isMissingNode() ? OptionalLong.empty()
                : OptionalLong.of(metric.path("value").asLong(-1));
    }

    /**
     * Restarts counted so far by the CKC jobs that have not ended, summed (each job's {@code numRestarts} metric).
     */
    public long ckcJobRestarts() throws IOException {
        long restarts = 0;
        for (JsonNode overview : get("jobs/overview").path("jobs")) {
            if (liveCkcJob(overview.path("name").asText(), overview.path("state").asText())) {
                restarts += jobMetric(overview.path("jid").asText(), "numRestarts").orElse(0);
            }
        }
        return restarts;
    }

    /**
     * Whether every CKC job that has not ended runs all its tasks (false when none does, or nothing answers). Read
     * from the jobs' overview, which is live: a job's details are served from a cache for seconds.
     */
    public boolean ckcJobsRunAllTasks() {
        return ckcJobsBackSince(0);
    }

    /**
     * Whether every CKC job that has not ended runs all its tasks and one of them changed (restarted) at or after
     * {@code sinceEpochMs}, this machine's clock: the jobs are back after a fault that struck then, however quickly
     * they came back (a poll can miss a restart that took a second). False when nothing answers.
     */
    public boolean ckcJobsBackSince(long sinceEpochMs) {
        try {
            return backSince(get("jobs/overview"), sinceEpochMs);
        } catch (IOException e) {
            return false;
        }
    }

    /** {@link #ckcJobsBackSince} of a {@code jobs/overview} answer. */
    static boolean backSince(JsonNode overview, long sinceEpochMs) {
        boolean any = false;
        boolean changed = false;
        for (JsonNode job : overview.path("jobs")) {
            if (!liveCkcJob(job.path("name").asText(), job.path("state").asText())) {
                continue;
            }
            JsonNode tasks = job.path("tasks");
            if (!job.path("state").asText().equals("RUNNING") || tasks.path("total").asInt() == 0
                    || tasks.path("running").asInt() != tasks.path("total").asInt()) {
                return false;
            }
            any = true;
            changed |= job.path("last-modification").asLong() >= sinceEpochMs;
        }
        return any && changed;
    }

    /**
     * Asks {@link #ckcJobsRunAllTasks} every {@code poll} until it holds or {@code System.nanoTime()} passes
     * {@code deadlineNanos}; whether it held.
     */
    public boolean awaitCkcJobsRunAllTasks(long deadlineNanos, Duration poll) {
        while (!ckcJobsRunAllTasks()) {
            if (System.nanoTime() >= deadlineNanos) {
                return false;
            }
            LockSupport.parkNanos(poll.toNanos());
        }
        return true;
    }

    /** A CKC job (a rule, a rescaled job, the stack's) that has not ended: created, running or restarting. */
    private static boolean liveCkcJob(String name, String state) {
        return name.startsWith(io.ckc.jobs.JobCatalog.NAME_PREFIX)
                && (state.equals("RUNNING") || state.equals("CREATED") || state.equals("RESTARTING"));
    }

    /** A job's checkpoint statistics; empty for a job that has none (no checkpointing, or not started). */
    private JsonNode checkpoints(String jobId) throws IOException {
        try {
            return get("jobs/" + jobId + "/checkpoints");
        } catch (NotFound e) {
            return mapper.createObjectNode();
        }
    }

    /** An HTTP 404 from the API. */
    static final class NotFound extends IOException {
        NotFound(String message) {
            super(message);
        }
    }

    /** The job with this Flink job name that has not ended (created, running or restarting), if any. */
    Optional<Job> live(String flinkName) throws IOException {
        return jobs().stream().filter(j -> j.name().equals(flinkName) && liveCkcJob(j.name(), j.state())).findFirst();
    }

    /** The job with this Flink job name whose tasks all run. */
    Optional<Job> running(String flinkName) throws IOException {
        return jobs().stream().filter(j -> j.name().equals(flinkName) && j.tasksRunning())
                .findFirst();
    }

    /** Triggers a savepoint ({@code stop}: stop-with-savepoint) and waits for it. */
    Savepoint savepoint(String jobId, String directory, boolean stop, Duration timeout) throws IOException {
        ObjectNode body = mapper.createObjectNode();
        String trigger;
        if (stop) {
            body.put("targetDirectory", directory);
            body.put("drain", false);
            trigger = post("jobs/" + jobId + "/stop", body).path("request-id").asText();
        } else {
            body.put("target-directory", directory);
            body.put("cancel-job", false);
            trigger = post("jobs/" + jobId + "/savepoints", body).path("request-id").asText();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status = get("jobs/" + jobId + "/savepoints/" + trigger);
            if (status.path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode operation = status.path("operation");
                return operation.has("location") ? new Savepoint(operation.path("location").asText(), null)
                        : new Savepoint(null, operation.path("failure-cause").path("stack-trace").asText(
                                operation.path("failure-cause").toString()).lines().findFirst().orElse("unknown"));
            }
            sleep(200);
        }
        return new Savepoint(null, "no result within " + timeout.toSeconds() + " s");
    }

    /** A job's global job parameters (its "user config"): labels a job carries, such as a rule's definer id. */
    java.util.Map<String, String> userConfig(String jobId) throws IOException {
        java.util.Map<String, String> labels = new java.util.LinkedHashMap<>();
        get("jobs/" + jobId + "/config").path("execution-config").path("user-config").properties()
                .forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
        return labels;
    }

    /** When the job started, in epoch milliseconds. */
    long startTime(String jobId) throws IOException {
        return get("jobs/" + jobId).path("start-time").asLong();
    }

    /**
     * Uploads a jar; returns its id on the cluster. Refused when the cluster runs another build of the jobs jar from
     * its classpath ({@link ClusterJobsJar}).
     */
    String upload(java.nio.file.Path jar) throws IOException {
        Optional<String> mismatch = ClusterJobsJar.mismatch(ClusterJobsJar.in(jobManagerClasspath()), jar);
        if (mismatch.isPresent()) {
            throw new IOException(mismatch.get());
        }
        String boundary = "ckc-" + System.nanoTime();
        byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                + jar.getFileName() + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n").getBytes();
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes();
        HttpRequest request = HttpRequest.newBuilder(base.resolve("jars/upload"))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.concat(HttpRequest.BodyPublishers.ofByteArray(head),
                        HttpRequest.BodyPublishers.ofFile(jar), HttpRequest.BodyPublishers.ofByteArray(tail)))
                .build();
        String file = send(request).path("filename").asText();
        return file.substring(file.lastIndexOf('/') + 1);
    }

    /** The cluster's configuration as the JobManager tells it, key to value. */
    java.util.Map<String, String> jobManagerConfig() throws IOException {
        java.util.Map<String, String> config = new java.util.LinkedHashMap<>();
        get("jobmanager/config").forEach(entry -> config.put(entry.path("key").asText(), entry.path("value").asText()));
        return config;
    }

    /** The JobManager's JVM classpath, one entry each; empty from a Flink that does not tell it. */
    List<String> jobManagerClasspath() throws IOException {
        List<String> entries = new ArrayList<>();
        try {
            get("jobmanager/environment").path("classpath").forEach(e -> entries.add(e.asText()));
        } catch (NotFound older) {
            // before Flink 1.19
        }
        return entries;
    }

    /** Runs an uploaded jar's entry class, from a savepoint if one is given; returns the job id. */
    String run(String jarId, String entryClass, int parallelism, List<String> args, String savepoint) throws IOException {
        ObjectNode body = mapper.createObjectNode();
        body.put("entryClass", entryClass);
        body.put("parallelism", parallelism);
        args.forEach(body.putArray("programArgsList")::add);
        if (savepoint != null) {
            body.put("savepointPath", savepoint);
            body.put("allowNonRestoredState", false);
        }
        return post("jars/" + jarId + "/run", body).path("jobid").asText();
    }

    /**
     * Waits until the job and all its tasks run, each vertex at {@code parallelism} where its max
     * parallelism allows (0: at any parallelism); false if not within the timeout.
     */
    boolean awaitRunning(String jobId, int parallelism, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode detail = get("jobs/" + jobId);
            if (runs(detail, parallelism)) {
                return true;
            }
            if (JobsCommand.TERMINAL.contains(detail.path("state").asText())) {
                return false; // failed at start: no use waiting
            }
            sleep(100);
        }
        return false;
    }

    /** Whether a job's details say it runs with every vertex's tasks running, at {@code parallelism} unless 0. */
    private static boolean runs(JsonNode detail, int parallelism) {
        boolean runs = detail.path("state").asText().equals("RUNNING") && !detail.path("vertices").isEmpty();
        for (JsonNode vertex : detail.path("vertices")) {
            runs &= vertex.path("status").asText().equals("RUNNING") && (parallelism == 0
                    || vertex.path("parallelism").asInt() == Math.min(parallelism, vertex.path("maxParallelism").asInt()));
        }
        return runs;
    }

    /** Whether the cluster runs the adaptive scheduler: the one that rescales a running job in place. */
    boolean adaptiveScheduler() throws IOException {
        for (JsonNode entry : get("jobmanager/config")) {
            if (entry.path("key").asText().equals("jobmanager.scheduler")) {
                return entry.path("value").asText().equalsIgnoreCase("adaptive");
            }
        }
        return false;
    }

    /**
     * Asks the adaptive scheduler to run every vertex of the job at {@code parallelism} (at most its max
     * parallelism: a vertex with max parallelism 1 stays at 1).
     */
    void requireParallelism(String jobId, int parallelism) throws IOException {
        ObjectNode requirements = mapper.createObjectNode();
        for (JsonNode vertex : get("jobs/" + jobId).path("vertices")) {
            ObjectNode bounds = requirements.putObject(vertex.path("id").asText()).putObject("parallelism");
            bounds.put("lowerBound", 1);
            bounds.put("upperBound", Math.min(parallelism, vertex.path("maxParallelism").asInt()));
        }
        send(HttpRequest.newBuilder(base.resolve("jobs/" + jobId + "/resource-requirements"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(mapper.writeValueAsString(requirements))).build());
    }


    /**
     * Asks for a checkpoint of a running job now; a refusal (one in progress, checkpointing off, the job
     * restarting) is left to the caller's next look at the job.
     */
    void triggerCheckpoint(String jobId) {
        try {
            post("jobs/" + jobId + "/checkpoints", mapper.createObjectNode());
        } catch (IOException refused) {
            // the periodic checkpoint or rescale-trigger.max-delay still comes
        }
    }

    /**
     * Records the job's sources have yet to read (Kafka lag, FLIP-33's {@code pendingRecords}, summed over
     * subtasks and sources), or null while no source reports it yet.
     */
    Long pendingRecords(String jobId) throws IOException {
        Long total = null;
        for (JsonNode vertex : get("jobs/" + jobId).path("vertices")) {
            if (!vertex.path("name").asText().startsWith("Source:")) {
                continue;
            }
            String metrics = "jobs/" + jobId + "/vertices/" + vertex.path("id").asText() + "/subtasks/metrics";
            for (JsonNode metric : get(metrics)) {
                String id = metric.path("id").asText();
                if (!id.endsWith(".pendingRecords")) {
                    continue;
                }
                for (JsonNode value : get(metrics + "?agg=sum&get=" + URLEncoder.encode(id,
                        StandardCharsets.UTF_8).replace("+", "%20"))) {
                    if (value.has("sum")) {
                        total = (total == null ? 0 : total) + value.path("sum").asLong();
                    }
                }
            }
        }
        return total;
    }

    /**
     * Waits until the job's sources are at most {@code records} behind; false if not within the timeout. A Kafka
     * source reports its lag only once it has read something, so a job whose sources reported none within 15 s is
     * caught up if it runs with every task and its sources have emitted nothing ({@link #runsIdle}): started from a
     * savepoint, nothing was written to its topics after it (a rescale of an idle stack); otherwise false.
     */
    boolean awaitCaughtUp(String jobId, long records, Duration timeout) throws IOException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Long pending = pendingRecords(jobId);
            if (pending != null && pending <= records) {
                return true;
            }
            if (pending == null && System.nanoTime() - start > Math.min(Duration.ofSeconds(15).toNanos(), timeout.toNanos())) {
                return runsIdle(get("jobs/" + jobId));
            }
            sleep(200);
        }
        return false;
    }

    /**
     * Whether a job's details (REST {@code jobs/<id>}) show it running with nothing to do: the job and every vertex
     * RUNNING, and no source vertex has emitted a record.
     */
    static boolean runsIdle(JsonNode job) {
        if (!job.path("state").asText().equals("RUNNING") || job.path("vertices").isEmpty()) {
            return false;
        }
        for (JsonNode vertex : job.path("vertices")) {
            if (!vertex.path("status").asText().equals("RUNNING")
                    || vertex.path("name").asText().startsWith("Source:")
                    && vertex.path("metrics").path("write-records").asLong() > 0) {
                return false;
            }
        }
        return true;
    }

    /** TaskManagers registered with the cluster; 0 when nothing answers. */
    public int taskManagers() {
        try {
            return get("overview").path("taskmanagers").asInt();
        } catch (IOException e) {
            return 0;
        }
    }

    /** The slots each registered TaskManager has given to jobs, by its resource id. */
    public Map<String, Integer> slotsTaken() throws IOException {
        Map<String, Integer> taken = new TreeMap<>();
        for (JsonNode tm : get("taskmanagers").path("taskmanagers")) {
            taken.put(tm.path("id").asText(), tm.path("slotsNumber").asInt() - tm.path("freeSlots").asInt());
        }
        return taken;
    }

    /** Jobs of the cluster that run now. */
    public long runningJobs() throws IOException {
        long running = 0;
        for (JsonNode job : get("jobs/overview").path("jobs")) {
            running += job.path("state").asText().equals("RUNNING") ? 1 : 0;
        }
        return running;
    }

    /** Cancels a job. */
    void cancel(String jobId) throws IOException {
        send(HttpRequest.newBuilder(base.resolve("jobs/" + jobId + "?mode=cancel"))
                .method("PATCH", HttpRequest.BodyPublishers.noBody()).build());
    }

    /** Cancels every CKC job that has not ended (a rule, a rescaled job, the stack's), for a stack that stops. */
    public void cancelCkcJobs() throws IOException {
        for (JsonNode job : get("jobs/overview").path("jobs")) {
            if (liveCkcJob(job.path("name").asText(), job.path("state").asText())) {
                cancel(job.path("jid").asText());
            }
        }
    }

    private JsonNode get(String path) throws IOException {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET().build());
    }

    private JsonNode post(String path, JsonNode body) throws IOException {
        return send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(mapper.writeValueAsString(body))).build());
    }

    /**
     * How long a request is sent again while the JobManager answers 503: a JobManager that has just started (again)
     * elects its leader before it serves, and a command run right after it (a submit after a restart) waits for that.
     */
    static final Duration LEADER_ELECTION_WAIT = Duration.ofSeconds(30);

    private JsonNode send(HttpRequest request) throws IOException {
        HttpResponse<String> response;
        long deadline = System.nanoTime() + LEADER_ELECTION_WAIT.toNanos();
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
            while (response.statusCode() == 503 && System.nanoTime() < deadline) {
                sleep(200);
                response = http.send(request, HttpResponse.BodyHandlers.ofString());
            }
        } catch (ConnectException e) {
            throw new IOException("no Flink REST API at " + base + " (is the stack up?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        JsonNode json = response.body().isBlank() ? mapper.createObjectNode() : mapper.readTree(response.body());
        if (response.statusCode() >= 300) {
            JsonNode errors = json.path("errors");
            String first = errors.isArray() && !errors.isEmpty() ? errors.get(0).asText().lines().findFirst().orElse("")
                    : response.body();
            String message = request.method() + " " + request.uri().getPath() + ": HTTP " + response.statusCode() + ": "
                    + first;
            throw response.statusCode() == 404 ? new NotFound(message) : new IOException(message);
        }
        return json;
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
