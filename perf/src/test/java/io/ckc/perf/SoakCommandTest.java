package io.ckc.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class SoakCommandTest {

    @Test
    void aSeriesThatGrowsIsToldApartFromOneThatOnlyWarmedUp(@TempDir Path dir) throws Exception {
        List<SoakCommand.Sample> samples = new ArrayList<>();
        for (int minute = 1; minute <= 20; minute++) {
            // The gateway's heap fills its caches in the first minutes, then stays; the simulator's grows all along.
            double warming = minute <= 5 ? 50 + 20 * minute : 150 + (minute % 2);
            samples.add(new SoakCommand.Sample(minute, "gateway-1", SoakCommand.Metric.HEAP_AFTER_GC_MB, warming));
            samples.add(new SoakCommand.Sample(minute, "simulator", SoakCommand.Metric.HEAP_AFTER_GC_MB, 100 + minute));
            samples.add(new SoakCommand.Sample(minute, "kafka", SoakCommand.Metric.OPEN_FDS, minute == 7 ? Double.NaN : 300));
        }
        Path csv = dir.resolve("soak.csv");
        SoakCommand.writeCsv(csv, samples);
        List<SoakCommand.Sample> read = SoakCommand.readCsv(csv);
        assertThat(read).hasSize(samples.size());

        Map<SoakCommand.Key, Trend> trends = SoakCommand.trends(read, 5, Trend.CONFIDENCE);
        Trend gateway = trends.get(new SoakCommand.Key(SoakCommand.Metric.HEAP_AFTER_GC_MB, "gateway-1"));
        Trend simulator = trends.get(new SoakCommand.Key(SoakCommand.Metric.HEAP_AFTER_GC_MB, "simulator"));
        Trend fds = trends.get(new SoakCommand.Key(SoakCommand.Metric.OPEN_FDS, "kafka"));
        assertThat(gateway.samples()).as("the warm-up's five left out").isEqualTo(15);
        assertThat(gateway.grows()).isFalse();
        assertThat(simulator.grows()).isTrue();
        assertThat(simulator.perHour()).isCloseTo(60, org.assertj.core.api.Assertions.within(0.01));
        assertThat(fds.samples()).as("a sample that could not be read is left out").isEqualTo(14);
        assertThat(fds.grows()).isFalse();
        assertThat(judged(SoakCommand.Metric.HEAP_AFTER_GC_MB, "simulator"))
                .as("the load generator's record of its messages is drawn, not judged").isFalse();
        assertThat(judged(SoakCommand.Metric.RSS_MB, "flink-taskmanager")).as("judged beyond its caches").isFalse();
        assertThat(judged(SoakCommand.Metric.RSS_BEYOND_CACHES_MB, "flink-taskmanager")).isTrue();
        assertThat(judged(SoakCommand.Metric.ROCKSDB_MB, "flink-taskmanager")).isFalse();
        assertThat(judged(SoakCommand.Metric.CODE_CACHE_MB, "kafka")).as("bounded, drawn").isFalse();
        assertThat(judged(SoakCommand.Metric.FILE_BACKED_MB, "kafka")).as("bounded, drawn").isFalse();
        assertThat(judged(SoakCommand.Metric.RSS_MB, "kafka")).as("judged beyond its caches").isFalse();
        assertThat(judged(SoakCommand.Metric.RSS_MB, "mosquitto"))
                .as("a process without the parts told apart: its resident memory itself").isTrue();
        assertThat(judged(SoakCommand.Metric.LAG_RECORDS, "ckc-echo-app"))
                .as("a Flink job's committed offsets trail by a checkpoint: its pending records are judged").isFalse();
        assertThat(judged(SoakCommand.Metric.PENDING_RECORDS, "ckc-echo")).isTrue();
        assertThat(judged(SoakCommand.Metric.LAG_RECORDS, "ckc-gateway-gw-1")).as("a gateway's group").isTrue();
    }

    /** A soak's samples after a 15-minute warm-up: {@code flat} series of noise that wanders, and the simulator. */
    private static List<SoakCommand.Sample> flatStack(Random random, int flat, double leakPerHour) {
        List<SoakCommand.Sample> samples = new ArrayList<>();
        for (int s = 0; s < flat; s++) {
            String series = "process-" + s;
            double phi = 0.5;
            double x = random.nextGaussian() / Math.sqrt(1 - phi * phi);
            for (int minute = 1; minute <= 60; minute++) {
                x = phi * x + random.nextGaussian();
                double leak = s == 0 ? leakPerHour * minute / 60 : 0;
                samples.add(new SoakCommand.Sample(minute, series, SoakCommand.Metric.HEAP_AFTER_GC_MB, 100 + x + leak));
            }
        }
        for (int minute = 1; minute <= 60; minute++) {
            samples.add(new SoakCommand.Sample(minute, "simulator", SoakCommand.Metric.HEAP_AFTER_GC_MB, 100 + minute));
        }
        return samples;
    }

    @Test
    void aStackWhereNothingGrowsIsJudgedGrowingAsRarelyAsOneSeriesAt95PercentAndALeakStillGrows() {
        Random random = new Random(5);
        int soaks = 200;
        int judgedGrowing = 0;
        int growingWereEachAt95 = 0;
        for (int soak = 0; soak < soaks; soak++) {
            List<SoakCommand.Sample> samples = flatStack(random, 43, 0);
            SoakCommand.Verdict verdict = SoakCommand.judge(samples, 15);
            assertThat(verdict.judged()).as("the simulator is drawn, not judged").isEqualTo(43);
            assertThat(verdict.series()).isEqualTo(44);
            assertThat(verdict.confidence()).isCloseTo(1 - 0.05 / 43, within(1e-12));
            judgedGrowing += verdict.growing().isEmpty() ? 0 : 1;
            growingWereEachAt95 += SoakCommand.trends(samples, 15, Trend.CONFIDENCE).entrySet().stream()
                    .anyMatch(e -> !e.getKey().series().equals("simulator") && e.getValue().grows()) ? 1 : 0;
        }
        // Were the intervals exact, one soak in 40 (one-sided); more, as r1 from 45 samples is biased low and the
        // far tail feels it most (16% here; about 13% from 20,000 simulated series); each at 95%, most soaks flag one.
        assertThat(judgedGrowing / (double) soaks).isLessThan(0.25);
        assertThat(growingWereEachAt95 / (double) soaks).isGreaterThan(0.6);

        // A leak of 6 a minute-noise's standard deviation an hour, in one series of 43: still found.
        SoakCommand.Verdict leaking = SoakCommand.judge(flatStack(new Random(6), 43, 6), 15);
        assertThat(leaking.growing()).containsExactly("heap_after_gc_mb:process-0");
        assertThat(leaking.summary()).isEqualTo(
                "series=44 judged=43 confidence_each=0.99884 growing_each_at_95=1 growing=1 (heap_after_gc_mb:process-0)");
        assertThat(leaking.lines()).hasSize(44).anyMatch(l -> l.contains("series=simulator") && l.endsWith(
                "grows=true judged=false"));
    }

    @Test
    void aPastSoaksSamplesAreJudgedAgainWithoutWritingAnything(@TempDir Path dir) throws Exception {
        SoakCommand.writeCsv(dir.resolve("soak.csv"), flatStack(new Random(6), 43, 6));
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        SoakCommand soak = new SoakCommand();
        soak.out = new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8);

        int code = new CommandLine(soak).execute("--judge", dir.toString(), "--results", dir.toString());

        assertThat(code).as("something grows").isEqualTo(1);
        assertThat(printed.toString(java.nio.charset.StandardCharsets.UTF_8)).contains(
                "RESULT soak_judged=" + dir + " minutes=60 warm_up_minutes=15 series=44 judged=43 "
                        + "confidence_each=0.99884 growing_each_at_95=1 growing=1 (heap_after_gc_mb:process-0)");
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(dir.resolve("soak.csv"));
        }
    }

    @Test
    void theWarmUpsCensusFollowsTheLastSampleTheTrendsLeaveOut() {
        assertThat(SoakCommand.warmUpCensusAfter(60, 15)).isEqualTo(15);
        assertThat(SoakCommand.fitted(15, 15)).isFalse();
        assertThat(SoakCommand.fitted(16, 15)).isTrue();
        assertThat(SoakCommand.warmUpCensusAfter(30, 20 / 3.0)).as("samples at 6.5 and 7.0 min").isEqualTo(13);
        assertThat(SoakCommand.warmUpCensusAfter(60, 0)).as("no warm-up: after the first sample").isEqualTo(1);
    }

    @Test
    void aWarmUpThatLeavesTooFewSamplesToFitIsAClearErrorBeforeAnythingStarts(@TempDir Path results) {
        assertThat(soak(results, "--minutes", "10", "--warm-up-minutes", "8")).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(soak(results, "--minutes", "10", "--warm-up-minutes", "Infinity")).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(soak(results, "--minutes", "10", "--sample-seconds", "0")).isEqualTo(CommandLine.ExitCode.USAGE);
        SoakCommand soak = new SoakCommand();
        new CommandLine(soak).parseArgs("--results", results.toString(), "--minutes", "10", "--warm-up-minutes", "8");
        assertThatThrownBy(soak::call).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--minutes 10 with a sample every 60 s and --warm-up-minutes 8.0 leave 2 samples after the "
                        + "warm-up; a trend needs at least 3");
        assertThat(SoakCommand.fittedSamples(10, 60, 7)).isEqualTo(3);
        assertThat(SoakCommand.fittedSamples(60, 60, 15)).isEqualTo(45);
    }

    private static int soak(Path results, String... args) {
        List<String> line = new ArrayList<>(List.of("--results", results.toString()));
        line.addAll(List.of(args));
        return new CommandLine(new SoakCommand()).execute(line.toArray(String[]::new));
    }

    /** Whether a series is judged in a soak of the echo and delivery jobs, its caches told apart in two processes. */
    private static boolean judged(SoakCommand.Metric metric, String series) {
        return SoakCommand.judged(new SoakCommand.Key(metric, series), java.util.Set.of("ckc-echo", "ckc-delivery"),
                java.util.Set.of("flink-taskmanager", "kafka"));
    }

    @Test
    void residentMemoryBeyondCachesLeavesOutCodeCacheFilePagesAndATaskManagersRocksDb() {
        JvmProbe.Look look = new JvmProbe.Look(40, 800, 200, 100, 30, 20);
        Map<String, Double> rocksDb = Map.of("flink-taskmanager", 50.0);

        assertThat(SoakCommand.rssBeyondCaches("flink-taskmanager", look, rocksDb)).isEqualTo(700);
        assertThat(SoakCommand.rssBeyondCaches("kafka", look, rocksDb)).isEqualTo(750);
        assertThat(SoakCommand.rssBeyondCaches("flink-taskmanager-2", look, rocksDb))
                .as("a TaskManager whose RocksDB could not be read: not a jump by its caches, a gap").isNaN();
    }

    @Test
    void theThreadCensusNamesWhatCameAndWentByNameWithoutNumbers() {
        Map<String, List<String>> before = Map.of(
                "flink-taskmanager", List.of("main", "pool-3-thread-1", "RMI TCP Connection(2)-127.0.0.1"),
                "kafka", List.of("main"));
        Map<String, List<String>> after = Map.of(
                "flink-taskmanager", List.of("main", "pool-3-thread-1", "pool-3-thread-2", "pool-4-thread-1",
                        "RMI TCP Connection(9)-127.0.0.1"),
                "kafka", List.of("main"),
                "gateway-1", List.of("main"));

        assertThat(SoakCommand.threadCensus(before, after)).containsExactly(
                "threads of flink-taskmanager, end against the end of the warm-up: +2 'pool-#-thread-#'");
    }

    @Test
    void theHeapCensusNamesTheClassesThatGrewMostWithoutHiddenClassAddresses() {
        long mb = 1024 * 1024;
        Map<String, Map<String, Long>> before = Map.of(
                "flink-jobmanager", Map.of("[B", 10 * mb, "java.util.HashMap$Node", 2 * mb, "Foo$$Lambda/0x1f", mb),
                "kafka", Map.of("[B", 100 * mb));
        Map<String, Map<String, Long>> after = Map.of(
                "flink-jobmanager", Map.of("[B", 10 * mb + 1024, "java.util.HashMap$Node", 3 * mb,
                        "Foo$$Lambda/0x2e", mb, "CheckpointStatistics", mb / 2),
                "kafka", Map.of("[B", 100 * mb),
                "gateway-1", Map.of("[B", mb));

        assertThat(SoakCommand.heapCensus(before, after)).containsExactly(
                "live heap of flink-jobmanager, end against the end of the warm-up: +1.50 MB; "
                        + "+1.00 MB 'java.util.HashMap$Node', +0.50 MB 'CheckpointStatistics'");
    }

    @Test
    void aClassHistogramIsReadAsBytesByClass() {
        String histogram = String.join("\n",
                "12345:",
                " num     #instances         #bytes  class name (module)",
                "-------------------------------------------------------",
                "   1:         41210        5217080  [B (java.base@17.0.17)",
                "   2:           120           4800  java.lang.String (java.base@17.0.17)",
                "   3:             2             64  io.ckc.Foo",
                "Total         41332        5221944");

        assertThat(JvmProbe.classHistogram(histogram)).containsOnly(Map.entry("[B", 5217080L),
                Map.entry("java.lang.String", 4800L), Map.entry("io.ckc.Foo", 64L));
    }

    @Test
    void aRunningJvmsLiveHeapIsReadByClass() {
        try (JvmProbe probe = new JvmProbe()) {
            Map<String, Long> classes = probe.liveBytesByClass(ProcessHandle.current().pid());

            assertThat(classes).containsKey("java.lang.String");
            assertThat(classes.get("java.lang.String")).isPositive();
        }
    }

    @Test
    void aLinuxStatusLineIsReadInKilobytes() {
        List<String> status = List.of("Name:\tjava", "VmRSS:\t 1295476 kB", "RssAnon:\t 1263488 kB",
                "RssFile:\t   31988 kB");
        assertThat(JvmProbe.statusKb(status, "RssFile")).isEqualTo(31988);
        assertThat(JvmProbe.statusKb(status, "RssShmem")).isNaN();
    }

    /** A JVM that collects once and waits: the other process a probe attaches to. */
    public static final class IdleJvm {
        public static void main(String[] args) throws Exception {
            System.gc();
            System.out.println("ready");
            System.in.read(); // until the test closes our stdin, or kills us
        }
    }

    @Test
    void theProbeReadsAnotherJvmThroughTheAttachApi() throws Exception {
        Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m",
                "-cp", System.getProperty("java.class.path"), IdleJvm.class.getName()).redirectErrorStream(true).start();
        try (JvmProbe probe = new JvmProbe()) {
            double[] heap = {Double.NaN};
            io.ckc.testing.Await.until("the other JVM's heap after its GC", 30, () -> {
                heap[0] = probe.look(other.pid()).heapAfterGcMb();
                return !Double.isNaN(heap[0]);
            });
            JvmProbe.Look look = probe.look(other.pid());
            assertThat(look.heapAfterGcMb()).isPositive().isLessThan(64);
            assertThat(look.threads()).isGreaterThan(1);
            assertThat(look.codeCacheMb()).isPositive().isLessThan(look.rssMb());
            assertThat(probe.threadNames(other.pid())).contains("main");
            if (System.getProperty("os.name").startsWith("Linux")) {
                assertThat(look.fileBackedMb()).isPositive().isLessThan(look.rssMb());
            }
        } finally {
            other.destroyForcibly();
        }
    }

    /**
     * A primed probe's looks make the JVM it watches generate no class for them any more: Java 17 generates one per
     * method called reflectively (as the JMX server calls an MXBean's), at its 16th call; the other JVM logs each class
     * it loads ({@code -Xlog:class+load}), and the test counts the generated ones.
     */
    @Test
    void aPrimedProbeMakesTheJvmItWatchesGenerateNoClassAnyMore(@TempDir Path dir) throws Exception {
        Path classes = dir.resolve("classes.log");
        Process other = idleJvm("-Xlog:class+load:file=" + classes);
        try (JvmProbe probe = new JvmProbe()) {
            awaitWatched(probe, other);
            probe.prime(other.pid());
            long primed = generatedClasses(classes);
            assertThat(primed).as("classes the priming made it generate").isPositive();
            for (int i = 0; i < 2 * JvmProbe.REFLECTIVE_CALLS_UNTIL_COMPILED; i++) {
                probe.look(other.pid());
            }
            assertThat(generatedClasses(classes)).as("classes generated for the looks after it").isEqualTo(primed);
        } finally {
            other.destroyForcibly();
        }
    }

    @Test
    void theProbeDumpsTheLiveHeapOfTheJvmItWatches(@TempDir Path dir) throws Exception {
        Path gcLog = dir.resolve("gc.log");
        Process other = idleJvm("-Xlog:gc:file=" + gcLog);
        try (JvmProbe probe = new JvmProbe()) {
            awaitWatched(probe, other);
            Path dump = dir.resolve("idle-end.hprof");
            Files.writeString(dump, "an older dump");

            assertThat(probe.dumpHeap(other.pid(), dump)).isTrue();
            byte[] header = new byte[18];
            try (var in = Files.newInputStream(dump)) {
                assertThat(in.readNBytes(header, 0, header.length)).isEqualTo(header.length);
            }
            assertThat(new String(header, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("JAVA PROFILE 1.0.2");
            assertThat(Files.readString(gcLog)).as("live objects only: a full collection first")
                    .contains("Heap Dump Initiated GC");
            assertThat(probe.dumpHeap(ProcessHandle.current().pid() + 1_000_000, dir.resolve("none.hprof")))
                    .as("no such process").isFalse();
        } finally {
            other.destroyForcibly();
        }
    }

    /** Another JVM that idles, started with {@code logging} (a {@code -Xlog} flag) for the test to read. */
    private static Process idleJvm(String logging) throws IOException {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m", logging,
                "-cp", System.getProperty("java.class.path"), IdleJvm.class.getName()).redirectErrorStream(true).start();
    }

    private static void awaitWatched(JvmProbe probe, Process other) throws InterruptedException {
        io.ckc.testing.Await.until("the other JVM's heap after its GC", 30,
                () -> !Double.isNaN(probe.look(other.pid()).heapAfterGcMb()));
    }

    private static long generatedClasses(Path classLog) throws IOException {
        try (var lines = Files.lines(classLog)) {
            return lines.filter(line -> line.contains("GeneratedMethodAccessor")).count();
        }
    }

    @Test
    void theProbeReadsTheLiveHeapAfterAFullCollectionItAsksFor() {
        long before = fullCollections();
        try (JvmProbe probe = new JvmProbe()) {
            assertThat(probe.look(ProcessHandle.current().pid()).heapAfterGcMb()).isPositive();
        }
        assertThat(fullCollections()).isGreaterThan(before);
    }

    private static long fullCollections() {
        return java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
                .filter(gc -> gc.getName().contains("Old") || gc.getName().contains("MarkSweep"))
                .mapToLong(java.lang.management.GarbageCollectorMXBean::getCollectionCount).sum();
    }

    @Test
    void theProbeReadsThisJvm() {
        try (JvmProbe probe = new JvmProbe()) {
            System.gc();
            JvmProbe.Look look = probe.look(ProcessHandle.current().pid());
            assertThat(look.heapAfterGcMb()).isPositive();
            assertThat(look.rssMb()).isGreaterThan(look.heapAfterGcMb());
            assertThat(look.openFds()).isPositive();
            assertThat(look.threads()).isGreaterThan(1);
            assertThat(look.codeCacheMb()).isPositive().isLessThan(look.rssMb());
            assertThat(probe.threadNames(ProcessHandle.current().pid())).contains(Thread.currentThread().getName());
        }
    }

    @Test
    void theWarmUpIsAQuarterOfAnHourUnlessTheSoakIsShortOrItIsAskedFor() {
        assertThat(SoakCommand.warmUpMinutes(-1, 60)).isEqualTo(15);
        assertThat(SoakCommand.warmUpMinutes(-1, 30)).isEqualTo(10);
        assertThat(SoakCommand.warmUpMinutes(5, 60)).as("asked for").isEqualTo(5);
    }
}
