package io.ckc.fuzz;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code ./ckc perf fuzz}: each target under Jazzer (libFuzzer's coverage-guided mutation in the JVM) for a given
 * time, in a JVM of its own, from its seeds, its committed corpus and what earlier runs on this machine kept
 * ({@code --work}); one {@code RESULT target=.. cases=.. crashes=..} line per target and one for all. A target that
 * crashed has its findings (the inputs, a Java reproducer each) and its log copied into the results folder; with
 * {@code --update-corpus} the inputs that reached new code are merged into the committed corpus, which CI runs as
 * regression tests.
 */
@Command(name = "fuzz", mixinStandardHelpOptions = true,
        description = "Runs each fuzz target under Jazzer for a while; RESULT target=.. cases=.. crashes=.. per target.")
public final class FuzzCommand implements Callable<Integer> {

    /**
     * The classes the fuzzer measures its coverage on, steers by and watches with its sanitizers: ours and the
     * codecs we rely on. (Its Unsafe sanitizer, let loose on Netty's internals, fails their static setup.)
     */
    static final String INSTRUMENTED = "io.ckc.**:com.fasterxml.jackson.**:io.netty.handler.codec.**";
    /**
     * What the committed corpus keeps an input for: reaching new code of ours. Counting the codecs' coverage too kept
     * 1,700 inputs (32 MB over all targets) for each record parser, Jackson's paths through them; ours alone, 46.
     */
    static final String OURS = "io.ckc.**";
    private static final Pattern EXECUTED = Pattern.compile("^stat::number_of_executed_units:\\s*(\\d+)");
    private static final Pattern PROGRESS = Pattern.compile("^#(\\d+)\\s");
    private static final List<String> FINDING_PREFIXES = List.of("crash-", "timeout-", "oom-", "leak-");

    @Option(names = "--seconds", defaultValue = "240",
            description = "How long each target is fuzzed, in seconds (default ${DEFAULT-VALUE}: the seven targets "
                    + "in 30 minutes)")
    int seconds;

    @Option(names = "--targets", split = ",", description = "The targets to fuzz (default all): ${COMPLETION-CANDIDATES}")
    List<String> targets = new ArrayList<>();

    @Option(names = "--results", required = true, description = "The results folder")
    Path results;

    @Option(names = "--work", defaultValue = ".ckc/fuzz",
            description = "Where each target's growing corpus, log and findings stay between runs (default ${DEFAULT-VALUE})")
    Path work;

    @Option(names = "--corpus", defaultValue = "fuzz/corpus",
            description = "The committed corpus, a folder per target (default ${DEFAULT-VALUE})")
    Path corpus;

    @Option(names = "--update-corpus",
            description = "Merge the inputs that reached new code of ours into the committed corpus (libFuzzer's -merge)")
    boolean updateCorpus;

    /** What one target's run came to. */
    public record Outcome(String target, long cases, int crashes, long millis) {
        public String resultLine() {
            return String.format("RESULT target=%s cases=%d crashes=%d seconds=%d cases_per_s=%d", target, cases,
                    crashes, millis / 1000, millis == 0 ? 0 : cases * 1000 / millis);
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new FuzzCommand()).execute(args));
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        List<FuzzTarget> chosen = targets.isEmpty() ? Arrays.asList(FuzzTarget.values())
                : targets.stream().map(FuzzTarget::of).toList();
        Files.createDirectories(results);
        List<String> lines = new ArrayList<>();
        long cases = 0;
        int crashes = 0;
        for (FuzzTarget target : chosen) {
            Path committed = corpus.resolve(target.label());
            Path targetWork = work.resolve(target.label());
            Outcome outcome = fuzz(target.label(), target.className(), target.seeds(), committed, seconds,
                    targetWork, System.getProperty("java.class.path"));
            System.out.println(outcome.resultLine());
            lines.add(outcome.resultLine());
            cases += outcome.cases();
            crashes += outcome.crashes();
            if (outcome.crashes() > 0) {
                keepFindings(targetWork, results.resolve(target.label()));
            } else if (updateCorpus) {
                merge(target.className(), committed, targetWork.resolve("corpus"), System.getProperty("java.class.path"));
            }
        }
        String total = String.format("RESULT scenario=fuzz targets=%d seconds_each=%d cases=%d crashes=%d",
                chosen.size(), seconds, cases, crashes);
        System.out.println(total);
        lines.add(total);
        Files.write(results.resolve("results.txt"), lines, StandardCharsets.UTF_8);
        return crashes == 0 ? 0 : 1;
    }

    /**
     * Fuzzes one target in a JVM of its own for {@code seconds}, from its seeds (written into {@code work/corpus},
     * where the fuzzer also keeps what it finds) and the committed corpus if there is one, going on past a crash
     * to the next distinct one; its output goes to {@code work/fuzz.log}, its findings to {@code work/findings}.
     */
    public static Outcome fuzz(String label, String className, List<byte[]> seeds, Path committed, int seconds,
                               Path work, String classpath) throws IOException, InterruptedException {
        work = work.toAbsolutePath(); // the fuzzer runs in it: every path it is given must not depend on that
        committed = committed.toAbsolutePath();
        Path workCorpus = Files.createDirectories(work.resolve("corpus"));
        Path findings = work.resolve("findings");
        clear(findings);
        Files.createDirectories(findings);
        for (int i = 0; i < seeds.size(); i++) {
            Files.write(workCorpus.resolve("seed-" + i), seeds.get(i));
        }
        List<String> command = jazzer(classpath, className, INSTRUMENTED);
        command.addAll(List.of(
                "--keep_going=20",
                "--reproducer_path=" + findings,
                "-max_total_time=" + seconds,
                "-timeout=30",
                "-rss_limit_mb=3072",
                "-print_final_stats=1",
                "-artifact_prefix=" + findings + "/",
                workCorpus.toString()));
        if (Files.isDirectory(committed)) {
            command.add(committed.toString());
        }
        Path log = work.resolve("fuzz.log");
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!process.waitFor(seconds + 300L, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return new Outcome(label, cases(Files.readAllLines(log, StandardCharsets.ISO_8859_1)), findings(findings),
                millis);
    }

    /** Jazzer on one target in a JVM of its own, its coverage and sanitizer hooks on the classes {@code includes} names. */
    private static List<String> jazzer(String classpath, String className, String includes) {
        return new ArrayList<>(List.of("java", "-Xmx1g", "-XX:+UseParallelGC", "-cp", classpath,
                "com.code_intelligence.jazzer.Jazzer", "--target_class=" + className,
                "--instrumentation_includes=" + includes, "--custom_hook_includes=" + includes));
    }

    /** The inputs a run executed: libFuzzer's final count, or its last progress line when it stopped on a crash. */
    static long cases(List<String> log) {
        long last = 0;
        for (String line : log) {
            Matcher executed = EXECUTED.matcher(line);
            if (executed.find()) {
                return Long.parseLong(executed.group(1));
            }
            Matcher progress = PROGRESS.matcher(line);
            if (progress.find()) {
                last = Long.parseLong(progress.group(1));
            }
        }
        return last;
    }

    /** The distinct findings a run left: crashing inputs, timeouts, out-of-memory and leaks. */
    static int findings(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return (int) files.map(f -> f.getFileName().toString())
                    .filter(name -> FINDING_PREFIXES.stream().anyMatch(name::startsWith))
                    .count();
        }
    }

    private static void clear(Path folder) throws IOException {
        if (Files.isDirectory(folder)) {
            try (Stream<Path> files = Files.list(folder)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    private static void keepFindings(Path targetWork, Path kept) throws IOException {
        Files.createDirectories(kept);
        Files.copy(targetWork.resolve("fuzz.log"), kept.resolve("fuzz.log"));
        try (Stream<Path> files = Files.list(targetWork.resolve("findings"))) {
            for (Path file : files.toList()) {
                Files.copy(file, kept.resolve(file.getFileName()));
            }
        }
    }

    private static void merge(String className, Path committed, Path found, String classpath)
            throws IOException, InterruptedException {
        Files.createDirectories(committed);
        List<String> command = jazzer(classpath, className, OURS);
        command.addAll(List.of("-merge=1", committed.toString(), found.toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (process.waitFor() != 0) {
            throw new UncheckedIOException(new IOException("merging the corpus of " + className + " failed"));
        }
    }
}
