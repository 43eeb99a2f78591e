package io.ckc.jobs;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** CKC jobs started on the test's MiniCluster, each checkpointing every second; closing cancels them. */
final class RunningJobs implements AutoCloseable {

    /** Adds a job's operators to an environment. */
    interface JobBuilder {
        void build(StreamExecutionEnvironment env) throws Exception;
    }

    private final List<JobClient> clients = new ArrayList<>();

    RunningJobs start(String name, JobBuilder job) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(1_000);
        job.build(env);
        clients.add(env.executeAsync(name));
        return this;
    }

    /** For diagnostics when a test fails: each job's status. */
    String status() throws Exception {
        StringBuilder out = new StringBuilder();
        for (JobClient client : clients) {
            out.append(client.getJobID()).append(' ').append(client.getJobStatus().get()).append('\n');
        }
        return out.toString();
    }

    @Override
    public void close() throws Exception {
        for (JobClient client : clients) {
            client.cancel().get(30, TimeUnit.SECONDS);
        }
    }
}
