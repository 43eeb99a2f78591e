package io.ckc.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code ./ckc perf suite}: the whole set, one run after another on this machine, into one results folder with
 * an index page that links each scenario's own folder and lists every RESULT line.
 */
@Command(name = "suite", mixinStandardHelpOptions = true,
        description = "The whole set, one after another: the README demo right after up, the machine's hand-off cost, "
                + "configurations 7 and 8 at 12/min and 8 at 4/min with the paper's 15,000 nodes, groupcast, rebalance, "
                + "stepped, overload, capacity and all eight configurations; one results folder with an index page.")
final class PerfSuite implements Callable<Integer> {

    /** The set, by name: each a ./ckc command line. */
    static final Map<String, List<String>> STEPS = new LinkedHashMap<>();

    static {
        STEPS.put("demo", List.of("demo"));
        STEPS.put("handoff", List.of("perf", "handoff"));
        STEPS.put("config78-12", List.of("perf", "scenario1", "--configs", "7,8", "--per-gateway", "--rate", "12"));
        STEPS.put("config8-4", List.of("perf", "scenario1", "--configs", "8", "--per-gateway", "--rate", "4"));
        STEPS.put("groupcast", List.of("perf", "groupcast"));
        STEPS.put("rebalance", List.of("perf", "rebalance"));
        STEPS.put("stepped", List.of("perf", "stepped"));
        STEPS.put("overload", List.of("perf", "overload"));
        STEPS.put("capacity", List.of("perf", "capacity"));
        STEPS.put("scenario1", List.of("perf", "scenario1"));
        STEPS.put("mtd", List.of("perf", "mtd"));
        STEPS.put("rescale", List.of("perf", "rescale"));
        STEPS.put("quick", List.of("perf", "quick"));
    }

    /** What the suite runs unless told: the set of the issues' goals. */
    static final List<String> DEFAULT = List.of("demo", "handoff", "config78-12", "config8-4", "groupcast", "rebalance",
            "stepped", "overload", "capacity", "scenario1");

    @Option(names = "--steps", split = ",", description = "Which steps, in this order; one of: ${COMPLETION-CANDIDATES}... "
            + "(default: all but mtd, rescale and quick)", completionCandidates = StepNames.class)
    List<String> steps = new ArrayList<>(DEFAULT);

    static final class StepNames extends ArrayList<String> {
        StepNames() {
            super(STEPS.keySet());
        }
    }

    @Override
    public Integer call() {
        for (String step : steps) {
            if (!STEPS.containsKey(step)) {
                throw new Ckc.Failure("no step '" + step + "'; the steps: " + String.join(", ", STEPS.keySet()));
            }
        }
        Home home = Home.current();
        Path suite = home.newResults("suite");
        String commit = Ckc.runForOutput(List.of("git", "-C", home.root.toString(), "rev-parse", "--short", "HEAD")).strip();
        List<String> index = new ArrayList<>();
        List<String> allResults = new ArrayList<>();
        int worst = 0;
        new Stack(home).down(); // the demo measures a stack right after up
        for (String step : steps) {
            Set<Path> before = folders(home);
            Instant started = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
            Capture.Printed printed = Capture.run(() -> Ckc.commandLine().execute(STEPS.get(step).toArray(String[]::new)));
            worst = Math.max(worst, printed.exitCode());
            Set<Path> made = folders(home);
            made.removeAll(before);
            made.remove(suite);
            String folder = made.stream().map(p -> p.getFileName().toString()).sorted().findFirst().orElse("");
            index.add(row(home, step, STEPS.get(step), started, printed, folder));
            printed.results().forEach(r -> allResults.add(step + " " + r));
        }
        write(suite.resolve("results.txt"), allResults);
        write(suite.resolve("NOTE.txt"), List.of("./ckc perf suite --steps " + String.join(",", steps) + " at " + commit
                + ", " + Instant.now() + ". Each step's own folder is linked from index.html."));
        write(suite.resolve("index.html"), page(commit, index));
        Ckc.say("suite done: " + suite.resolve("index.html"));
        return worst;
    }

    private static String row(Home home, String step, List<String> command, Instant started, Capture.Printed printed, String folder) {
        String link = folder.isEmpty() ? "" : "<a href=\"../" + folder + "/" + (Files.exists(home.root.resolve("perf/results").resolve(folder).resolve(
                "report.html")) ? "report.html" : "") + "\">" + folder + "</a>";
        return "<tr><td>" + step + "</td><td><code>./ckc " + escape(String.join(" ", command)) + "</code></td><td>"
                + started + "</td><td>" + printed.exitCode() + "</td><td>" + link + "</td><td><pre>"
                + escape(String.join("\n", printed.results())) + "</pre></td></tr>";
    }

    private static String page(String commit, List<String> rows) {
        return "<!doctype html><html><head><meta charset=\"utf-8\"><title>CKC perf suite at " + commit + "</title>"
                + "<style>body{font-family:sans-serif;margin:2em}td{vertical-align:top;border-top:1px solid #ccc;"
                + "padding:4px}pre{margin:0;font-size:12px;white-space:pre-wrap}</style></head><body><h1>CKC perf suite at " + commit + "</h1>"
                + "<p>Every figure beside the bare-Kafka echo of its own run; each step's folder holds its report.</p>"
                + "<table><tr><th>step</th><th>command</th><th>started (UTC)</th><th>exit</th><th>results</th>"
                + "<th>RESULT lines</th></tr>" + String.join("\n", rows) + "</table></body></html>\n";
    }

    private static Set<Path> folders(Home home) {
        try (Stream<Path> list = Files.list(home.root.resolve("perf/results"))) {
            return new TreeSet<>(list.filter(Files::isDirectory).toList());
        } catch (IOException e) {
            return new TreeSet<>();
        }
    }

    static void write(Path file, List<String> lines) {
        try {
            Files.write(file, lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
