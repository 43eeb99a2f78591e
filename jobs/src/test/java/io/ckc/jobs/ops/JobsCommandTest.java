package io.ckc.jobs.ops;

import io.ckc.testing.Await;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator commands against a MiniCluster's REST API, with a small keyed job named like a CKC
 * job: the listing, a savepoint, and bad requests that get one clear line and change nothing.
 */
class JobsCommandTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private JobClient probe;
    private String url;

    @TempDir
    Path savepoints;

    /** Per test: the extension points the execution environment at its cluster only around each test. */
    @BeforeEach
    void startProbe(@InjectClusterClient RestClusterClient<?> client) throws Exception {
        url = client.getWebInterfaceURL();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.setMaxParallelism(128);
        // A slow stream: the test needs the job running, not busy (a busy one makes savepoints slow).
        DataGeneratorSource<Long> numbers = new DataGeneratorSource<>(n -> n, Long.MAX_VALUE,
                RateLimiterStrategy.perSecond(100), Types.LONG);
        env.fromSource(numbers, WatermarkStrategy.noWatermarks(), "numbers").uid("probe-source")
                .keyBy(n -> n % 16)
                .map(n -> n + 1).uid("probe-map")
                .sinkTo(new DiscardingSink<>()).uid("probe-sink");
        probe = env.executeAsync("ckc-probe");
    }

    @AfterEach
    void stopProbe() throws Exception {
        probe.cancel().get();
    }

    /** This test's probe runs with all its tasks (the one before it may still be on its way out). */
    private boolean probeRunning() {
        try {
            return new FlinkRest(url).running("ckc-probe").filter(j -> j.id().equals(probe.getJobID().toHexString()))
                    .isPresent();
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void theListShowsTheJobByItsShortNameWithItsParallelismAndMaxParallelism() throws Exception {
        Await.until("the probe job running", 30, this::probeRunning);
        Commands.Outcome list = Commands.run("--flink", url, "list");
        assertThat(list.code()).as(list.err()).isZero();
        assertThat(list.out()).containsPattern("(?m)^probe\\s+[0-9a-f]{32}\\s+1\\s+128\\s+RUNNING\\s");
    }

    @Test
    void aSavepointIsWrittenWhereAskedAndItsPathPrinted() throws Exception {
        Await.until("the probe job running", 30, this::probeRunning);
        Commands.Outcome savepoint = Commands.run("--flink", url, "--savepoint-dir", savepoints.toUri().toString(), "savepoint", "probe");
        assertThat(savepoint.code()).as(savepoint.err()).isZero();
        assertThat(savepoint.out()).startsWith("RESULT op=savepoint job=probe savepoint_ms=");
        try (Stream<Path> written = Files.list(savepoints)) {
            assertThat(written.map(p -> p.getFileName().toString())).anyMatch(name -> name.startsWith("savepoint-"));
        }
        assertThat(probeRunning()).as("a savepoint without --stop leaves the job running").isTrue();
    }

    @Test
    void badRequestsGetOneLineAndStopNothing() throws Exception {
        Await.until("the probe job running", 30, this::probeRunning);
        Commands.Outcome unknown = Commands.run("--flink", url, "savepoint", "nope");
        assertThat(unknown.code()).isOne();
        assertThat(unknown.err()).isEqualTo("ckc: no running job 'nope'; running: probe" + System.lineSeparator());

        Commands.Outcome tooWide = Commands.run("--flink", url, "rescale", "probe", "500", "--jar", "missing.jar");
        assertThat(tooWide.code()).isOne();
        assertThat(tooWide.err()).contains("parallelism must be between 1 and the job's max parallelism 128, got 500");

        Commands.Outcome notInCatalog = Commands.run("--flink", url, "rescale", "probe", "2", "--jar", "missing.jar");
        assertThat(notInCatalog.code()).isOne();
        assertThat(notInCatalog.err()).contains("'probe' is not a job of the stack's catalog (delivery, poa-manager, "
                + "echo, group-definer-grid-cell)");

        Commands.Outcome noSavepoint = Commands.run("--flink", url, "restore", "delivery", "/no/such/savepoint", "--jar", "missing.jar");
        assertThat(noSavepoint.code()).isOne();
        assertThat(noSavepoint.err()).contains("no savepoint at /no/such/savepoint");

        Commands.Outcome noJar = Commands.run("--flink", url, "restore", "delivery", savepoints.toString(), "--jar", "missing.jar");
        assertThat(noJar.code()).isOne();
        assertThat(noJar.err()).contains("no job jar at missing.jar");

        assertThat(probeRunning()).as("nothing was stopped").isTrue();

        Commands.Outcome notAdaptive = Commands.run("--flink", url, "rescale", "probe", "2", "--in-place", "--jar", "missing.jar");
        assertThat(notAdaptive.code()).isOne();
        assertThat(notAdaptive.err()).contains("--in-place needs a cluster with the adaptive scheduler");

        Commands.Outcome noCluster = Commands.run("--flink", "http://127.0.0.1:1", "list");
        assertThat(noCluster.code()).isOne();
        assertThat(noCluster.err()).startsWith("ckc: no Flink REST API at http://127.0.0.1:1/");
    }
}
