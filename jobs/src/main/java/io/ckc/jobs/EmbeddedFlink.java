package io.ckc.jobs;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ParameterTool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Runs CKC's jobs on an embedded Flink MiniCluster in this JVM: the default of {@code ./ckc up}.
 * The same job classes run unchanged on a real cluster.
 *
 * <p>Flags: {@code --conf-dir} (Flink configuration directory, default runtime/flink/conf),
 * {@code --rest-port} (web UI and REST, default 8082), {@code --delivery-parallelism} (1),
 * {@code --echo-parallelism} (1), {@code --no-echo}, {@code --poa-parallelism} (1),
 * {@code --group-selection} (the stack's group definer, grid-cell; {@code none} for none),
 * {@code --spare-slots} (2: room for SQL rules submitted later with {@code ./ckc sql}); all jobs'
 * own flags pass through.
 */
public final class EmbeddedFlink {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedFlink.class);

    private EmbeddedFlink() {
    }

    public static void main(String[] args) throws Exception {
        ParameterTool params = ParameterTool.fromArgs(args);
        Configuration conf = GlobalConfiguration.loadConfiguration(params.get("conf-dir", "runtime/flink/conf"));
        conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        conf.set(RestOptions.PORT, params.getInt("rest-port", 8082));
        // The job jar is on this JVM's classpath already: a copy submitted later (./ckc sql) must use
        // those classes, not load a second Kafka client beside them.
        conf.set(CoreOptions.CLASSLOADER_RESOLVE_ORDER, "parent-first");
        List<JobCatalog.Launch> jobs = JobCatalog.stack(params);
        int slots = jobs.stream().mapToInt(JobCatalog.Launch::parallelism).sum();
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(slots + params.getInt("spare-slots", 2))
                .build());
        cluster.start();
        try {
            submitJobs(cluster, conf, params, jobs);
        } catch (Exception e) {
            LOG.error("Cannot start the jobs", e);
            System.err.println("CKC embedded Flink failed: " + e);
            cluster.close();
            System.exit(1);
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                cluster.close();
            } catch (Exception e) {
                LOG.warn("MiniCluster did not stop cleanly", e);
            } finally {
                stopped.countDown();
            }
        }, "ckc-flink-shutdown"));
        stopped.await();
    }

    private static void submitJobs(MiniCluster cluster, Configuration conf, ParameterTool params,
                                   List<JobCatalog.Launch> jobs) throws Exception {
        URI rest = cluster.getRestAddress().get();
        for (JobCatalog.Launch job : jobs) {
            StreamExecutionEnvironment env = remote(rest, conf, job.parallelism());
            job.kind().program(job.params(params)).accept(env);
            env.executeAsync(job.flinkName());
        }
        LOG.info("Embedded Flink running at {}: {}", rest, jobs);
        System.out.println("CKC embedded Flink ready: " + rest);
    }

    private static StreamExecutionEnvironment remote(URI rest, Configuration conf, int parallelism) {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), conf);
        env.setParallelism(parallelism);
        return env;
    }
}
