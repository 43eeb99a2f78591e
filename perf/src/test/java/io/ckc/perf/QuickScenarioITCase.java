package io.ckc.perf;

import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.jobs.echo.EchoJob;
import io.ckc.protocol.kafka.Topics;
import io.ckc.testing.EmbeddedKafkaExtension;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The quick scenario end to end on real parts (an in-JVM KRaft broker, a Flink MiniCluster running
 * the delivery and echo jobs, a gateway, simulated nodes): one configuration on the CKC path and
 * on the bare-Kafka baseline, two load levels of each, then the report. Checks the report files are
 * all there and their numbers agree with each other: sent = delivered + lost, the RTT log holds
 * one round trip per delivery, the bands sum to 100%, every step has its samples.
 */
class QuickScenarioITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4)
                    .build());

    @TempDir
    Path resultsDir;

    @Test
    void theQuickScenarioWritesACompleteAndConsistentReport() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-1"));
        ParameterTool params = ParameterTool.fromArgs(new String[] {"--bootstrap", KAFKA.bootstrapServers(),
                "--topic-prefix", topics.prefix(), "--app-topic-prefix", topics.appPrefix(), "--parallelism", "2"});
        JobClient delivery = submit(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build);
        JobClient echo = submit(EchoJob.NAME, EchoJob.fromArgs(params)::build);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        try (Gateway gateway = Gateway.start(GatewayConfig.forTest("gw-1", KAFKA.bootstrapServers(), topics))) {
            String address = "127.0.0.1:" + gateway.udpAddress().getPort();
            for (String path : List.of(Results.KAFKA, Results.CKC)) {
                RunCommand run = new RunCommand();
                run.config = "1";
                run.path = path;
                run.stack.gateways = List.of(address);
                run.stack.bootstrap = KAFKA.bootstrapServers();
                run.appParallelism = 2;
                run.nodes = 100;
                run.messages = 3;
                run.ratePerMinute = 120;
                run.arrivals = Schedule.Arrivals.CONSTANT;
                run.connectIntervalMs = 1;
                run.drainSeconds = 20;
                run.stack.ioThreads = 1;
                run.stack.resultsDir = resultsDir;
                run.out = out;
                run.call();
            }
            SteppedCommand stepped = new SteppedCommand();
            stepped.stack.gateways = List.of(address);
            stepped.stack.bootstrap = KAFKA.bootstrapServers();
            stepped.paths = List.of(Results.CKC, Results.KAFKA);
            stepped.nodes = 100;
            stepped.start = 50;
            stepped.step = 50;
            stepped.maxSteps = 2;
            stepped.baselineMaxSteps = 2;
            stepped.warmupSeconds = 1;
            stepped.samples = 3;
            stepped.arrivals = Schedule.Arrivals.POISSON;
            stepped.drainSeconds = 10;
            stepped.stack.ioThreads = 1;
            stepped.stack.resultsDir = resultsDir;
            stepped.out = out;
            stepped.call();

            OverloadCommand overload = new OverloadCommand(); // its saturation searched in the run, then its phases
            overload.stack.gateways = List.of(address);
            overload.stack.bootstrap = KAFKA.bootstrapServers();
            overload.paths = List.of(Results.CKC);
            overload.nodes = 100;
            overload.searchStart = 50;
            overload.searchStep = 50;
            overload.searchMaxSteps = 2;
            overload.searchSeconds = 2;
            overload.factor = 2;
            overload.saturationSeconds = 3;
            overload.overloadSeconds = 3;
            overload.afterSeconds = 3;
            overload.settleSeconds = 0;
            overload.arrivals = Schedule.Arrivals.POISSON;
            overload.stack.ioThreads = 1;
            overload.stack.resultsDir = Files.createDirectories(resultsDir.resolve("overload"));
            overload.out = out;
            overload.call();
        } finally {
            delivery.cancel().get(30, TimeUnit.SECONDS);
            echo.cancel().get(30, TimeUnit.SECONDS);
        }
        Results results = new Results(resultsDir);
        ReportCommand.write(results, out);

        for (String file : List.of("runs.csv", "stepped.csv", "figure4.csv", "figure8.csv", "cpu.csv", "tables.txt",
                "report.html", "rtt-1-ckc.hlog", "rtt-1-kafka.hlog", "seq-1-ckc.csv", "seq-1-kafka.csv",
                "cpu-1-ckc.csv", "cpu-stepped-ckc.csv", "cpu-stepped-kafka.csv", "stepped-samples.csv")) {
            assertThat(resultsDir.resolve(file)).as(file).isNotEmptyFile();
        }
        // a line per one-second sample of each level (3 at most each), after the header
        List<String> samples = Files.readAllLines(resultsDir.resolve("stepped-samples.csv"));
        assertThat(samples).hasSizeBetween(2, 1 + 3 * results.steps().size());
        assertThat(samples.get(1)).startsWith("ckc,1,50,1,1");
        List<Results.RunRow> runs = results.runs();
        assertThat(runs).extracting(Results.RunRow::path).containsExactlyInAnyOrder(Results.KAFKA, Results.CKC);
        for (Results.RunRow run : runs) {
            assertThat(run.sent()).isEqualTo(300);
            assertThat(run.delivered() + run.lost()).isEqualTo(run.sent());
            Histogram rtt = results.rtt(run);
            assertThat(rtt.getTotalCount()).as("one round trip logged per delivery").isEqualTo(run.delivered());
            assertThat(Arrays.stream(Report.bands(rtt, Report.FIGURE8_BANDS_MS)).sum()).isCloseTo(100.0, within(1e-6));
            assertThat(results.meanBySeq(run)).hasSize(3);
        }
        for (String line : Files.readAllLines(resultsDir.resolve("figure8.csv")).subList(1, 3)) {
            double sum = Arrays.stream(line.split(",")).skip(2).mapToDouble(Double::parseDouble).sum();
            assertThat(sum).as(line).isCloseTo(100.0, within(0.01));
        }
        List<Results.StepRow> steps = results.steps();
        for (String path : List.of(Results.CKC, Results.KAFKA)) {
            List<Results.StepRow> ofPath = steps.stream().filter(s -> s.path().equals(path)).toList();
            assertThat(ofPath).as(path).isNotEmpty();
            Results.StepRow first = ofPath.get(0);
            assertThat(first.step()).isEqualTo(1);
            // A path stops at its saturation point; on a busy test machine that may be the first level.
            assertThat(ofPath).as(path).hasSize(first.saturated(ReportCommand.SATURATION_P99_MS) ? 1 : 2);
        }
        assertThat(steps).allSatisfy(s -> {
            assertThat(s.throughput().n()).isBetween(2, 3);
            assertThat(s.lost()).isBetween(0L, s.sent());
        });
        assertThat(Files.readAllLines(resultsDir.resolve("cpu-1-ckc.csv")).subList(1, 2).get(0)).contains("simulator");
        assertThat(Files.readString(resultsDir.resolve("cpu.csv"))).contains("1-ckc,simulator", "stepped-ckc,simulator",
                "stepped-kafka,simulator");
        Path overloadDir = resultsDir.resolve("overload");
        assertThat(Files.readString(overloadDir.resolve("overload.txt"))).as("what the search found, and used")
                .containsPattern("saturation_offered_per_s=(50|100) saturation_from=search(-unsaturated)?\\b")
                .contains(" lost=0");
        assertThat(new Results(overloadDir).steps()).as("the search's levels").isNotEmpty()
                .allSatisfy(step -> assertThat(step.path()).isEqualTo(Results.CKC));
        assertThat(OverloadCommand.read(new Results(overloadDir), Results.CKC)).extracting(OverloadCommand.Second::phase)
                .contains(OverloadCommand.Phase.SATURATION, OverloadCommand.Phase.OVERLOAD, OverloadCommand.Phase.AFTER);
        assertThat(OverloadCommand.read(new Results(overloadDir), Results.CKC)).as("the fleet's windows, each second")
                .allSatisfy(s -> assertThat(s.windowFrames()).isGreaterThanOrEqualTo(2L * 64));
        String html = Files.readString(resultsDir.resolve("report.html"));
        assertThat(html).contains("Figure 4 layout", "Figure 8 layout", "Stepped load", "</html>");
        assertThat(html.split("<img class=\"chart\"", -1)).hasSizeGreaterThan(6);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("RESULT config=1 path=ckc", "RESULT step=2 path=kafka");
    }

    /** Submits a job to the MiniCluster of the test that calls it; the other perf ITCases use it too. */
    static JobClient submit(String name, Builder job) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        job.build(env);
        return env.executeAsync(name);
    }

    interface Builder {
        void build(StreamExecutionEnvironment env) throws Exception;
    }
}
