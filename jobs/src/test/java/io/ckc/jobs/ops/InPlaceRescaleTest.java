package io.ckc.jobs.ops;

import io.ckc.testing.Await;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code rescale --in-place} on a MiniCluster with the adaptive scheduler: the running job widens and
 * narrows without a savepoint, and a vertex with max parallelism 1 (a global step) stays at 1.
 */
class InPlaceRescaleTest {

    private static Configuration adaptive() {
        Configuration conf = new Configuration();
        conf.set(JobManagerOptions.SCHEDULER, JobManagerOptions.SchedulerType.Adaptive);
        conf.set(JobManagerOptions.SCHEDULER_EXECUTING_COOLDOWN_AFTER_RESCALING, Duration.ofSeconds(1));
        conf.set(JobManagerOptions.SCHEDULER_EXECUTING_RESOURCE_STABILIZATION_TIMEOUT, Duration.ofSeconds(1));
        return conf;
    }

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(adaptive()).setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    @Test
    void aRunningJobWidensAndNarrowsInPlaceAndItsGlobalStepStaysAtOne(@InjectClusterClient RestClusterClient<?> client)
            throws Exception {
        String url = client.getWebInterfaceURL();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.setMaxParallelism(128);
        env.fromSource(new DataGeneratorSource<>(n -> n, Long.MAX_VALUE, RateLimiterStrategy.perSecond(100), Types.LONG),
                        WatermarkStrategy.noWatermarks(), "numbers").uid("source")
                .keyBy(n -> n % 16).map(n -> n + 1).uid("widens")
                .keyBy(n -> 0).map(n -> n).uid("global").setMaxParallelism(1)
                .sinkTo(new DiscardingSink<>()).uid("sink").setMaxParallelism(1);
        JobClient job = env.executeAsync("ckc-probe");
        try {
            FlinkRest rest = new FlinkRest(url);
            Await.until("the probe running", 30, () -> running(rest));
            // The probe reads no Kafka topic, so it has no lag to catch up on: no wait for it.
            Commands.Outcome widen = Commands.run("--flink", url, "--caught-up-wait", "0", "rescale", "probe", "2",
                    "--in-place", "--jar", "unused.jar");
            assertThat(widen.code()).as(widen.err()).isZero();
            assertThat(widen.out()).startsWith("RESULT op=in-place job=probe from=1 to=2 rescale_ms=")
                    .contains("caught_up_ms=unknown");
            FlinkRest.Job widened = rest.running("ckc-probe").orElseThrow();
            assertThat(widened.parallelism()).isEqualTo(2);
            assertThat(widened.id()).as("the same job, not a resubmission").isEqualTo(job.getJobID().toHexString());

            assertThat(Commands.run("--flink", url, "--caught-up-wait", "0", "rescale", "probe", "1", "--in-place",
                    "--jar", "unused.jar").code()).isZero();
            assertThat(rest.running("ckc-probe").orElseThrow().parallelism()).isOne();
        } finally {
            job.cancel().get();
        }
    }

    private static boolean running(FlinkRest rest) {
        try {
            return rest.running("ckc-probe").isPresent();
        } catch (IOException e) {
            return false;
        }
    }
}
