package io.ckc.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code ./ckc perf ab}: two revisions measured side by side on this machine, A B A B, each run from a stopped
 * stack in a clone of its own, and one table with every round and the medians. Machines of this kind differ by
 * up to 2.7x from one day to the next; only runs interleaved like this compare two revisions.
 */
@Command(name = "ab", mixinStandardHelpOptions = true,
        description = "Runs a ./ckc command line at two revisions, A B A B, each from a stopped stack in its own clone "
                + "(under .ckc/ab/), and prints one table: every round's RESULT figures and the medians of each side.")
final class PerfAb implements Callable<Integer> {

    @Option(names = "--a", required = true, description = "Revision A (a commit, branch or tag of this repository)")
    String a;

    @Option(names = "--b", required = true, description = "Revision B")
    String b;

    @Option(names = "--rounds", defaultValue = "2", description = "Rounds of A then B (default ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--b-flags", split = " ", paramLabel = "FLAGS", description = "Flags added to B's command line only: "
            + "the same revision on both sides then compares an option, e.g. --a main --b main --b-flags=--kafka-auth")
    List<String> bFlags = new ArrayList<>();

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The ./ckc command line to run, after --: "
            + "for example -- perf scenario1 --configs 8 --per-gateway --rate 4")
    List<String> command;

    /** One RESULT line of one run. */
    record Row(int round, String side, String label, Map<String, Double> figures) {
    }

    @Override
    public Integer call() {
        if (rounds < 1) {
            throw new Ckc.Failure("--rounds takes a positive number");
        }
        Home home = Home.current();
        Map<String, Path> clones = new LinkedHashMap<>();
        Map<String, String> revisions = new LinkedHashMap<>();
        for (String[] side : new String[][] {{"A", a}, {"B", b}}) {
            String commit = Ckc.runForOutput(List.of("git", "-C", home.root.toString(), "rev-parse", "--short",
                    side[1] + "^{commit}")).strip();
            revisions.put(side[0], commit);
            clones.put(side[0], clone(home, side[0], commit));
        }
        Path results = home.newResults("ab");
        List<Row> rows = new ArrayList<>();
        Stack stack = new Stack(home);
        stack.down();
        stack.flink().stopCluster();
        for (int round = 1; round <= rounds; round++) {
            for (String side : clones.keySet()) {
                clones.values().forEach(PerfAb::down);
                List<String> sideCommand = commandOf(side, command, bFlags);
                Ckc.say("round " + round + ", " + side + " (" + revisions.get(side) + "): ./ckc " + String.join(" ", sideCommand));
                List<String> lines = run(clones.get(side), sideCommand, results.resolve("run-" + round + "-" + side + ".results.txt"));
                for (String line : lines) {
                    rows.add(parse(round, side, line));
                }
                down(clones.get(side));
            }
        }
        List<String> table = table(rows, revisions);
        PerfSuite.write(results.resolve("ab.md"), table);
        PerfSuite.write(results.resolve("NOTE.txt"), List.of("./ckc perf ab --a " + a + " --b " + b + " --rounds " + rounds
                + (bFlags.isEmpty() ? "" : " --b-flags=\"" + String.join(" ", bFlags) + "\"") + " -- " + String.join(" ", command), "A = " + revisions.get("A") + ", B = " + revisions.get("B")
                + ", finished " + Instant.now() + "; each run from a stopped stack; run-<round>-<side>.results.txt hold the RESULT lines."));
        table.forEach(System.out::println);
        return 0;
    }

    /** The command line one side runs: B's gets {@code --b-flags} after it. */
    static List<String> commandOf(String side, List<String> command, List<String> bFlags) {
        List<String> line = new ArrayList<>(command);
        if (side.equals("B")) {
            line.addAll(bFlags);
        }
        return line;
    }

    /** A clone of this repository at {@code commit}, built; kept between A/B runs of the same commit. */
    private static Path clone(Home home, String side, String commit) {
        Path dir = home.state.resolve("ab").resolve(side);
        if (Files.isDirectory(dir.resolve(".git"))) {
            // every branch and tag: a revision on a branch other than the one checked out (an experiment) too
            Ckc.runOrFail("fetch into " + dir, home.log("ab-" + side), List.of("git", "-C", dir.toString(), "fetch", "-q",
                    home.root.toString(), "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"));
        } else {
            Ckc.deleteTree(dir);
            Ckc.runOrFail("clone for " + side, home.log("ab-" + side), List.of("git", "clone", "-q", home.root.toString(),
                    dir.toString()));
        }
        // --force: a run may have changed a tracked file in the clone (perf mqtt writes perf/README's cost table)
        Ckc.runOrFail("check out " + commit, home.log("ab-" + side), List.of("git", "-C", dir.toString(), "checkout", "-q",
                "--force", "--detach", commit));
        Ckc.say("building " + side + " at " + commit + " in " + dir + "...");
        Ckc.runOrFail("build " + side, home.log("ab-build-" + side), List.of(dir.resolve("ckc").toString(), "build"));
        return dir;
    }

    private static void down(Path clone) {
        for (List<String> stop : stopCommands(clone)) {
            Ckc.runOrFail("stop the stack of " + clone, clone.resolve(".ckc/logs/ab-down.log"), stop);
        }
    }

    /**
     * What stops a clone's stack between runs: its processes, then its standalone Flink cluster, which {@code down}
     * leaves running and a command that needs one ({@code perf faults}, {@code perf rescale}) leaves up; the other
     * side's cluster would hold the REST port.
     */
    static List<List<String>> stopCommands(Path clone) {
        String ckc = clone.resolve("ckc").toString();
        return List.of(List.of(ckc, "down"), List.of(ckc, "flink-cluster", "stop"));
    }

    /** Runs {@code ./ckc COMMAND} in a clone, its output shown and kept; returns its RESULT lines. */
    private static List<String> run(Path clone, List<String> command, Path log) {
        List<String> full = new ArrayList<>(List.of(clone.resolve("ckc").toString()));
        full.addAll(command);
        List<String> output = new ArrayList<>();
        List<String> results;
        try {
            Process process = new ProcessBuilder(full).directory(clone.toFile()).redirectErrorStream(true).start();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    System.out.println(line);
                    output.add(line);
                }
            }
            process.waitFor();
            results = resultLines(output);
            Files.write(log, results);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Ckc.Failure("interrupted");
        }
        return results;
    }

    /** A run's RESULT lines, each once: a command that recaps its figures at the end prints them twice. */
    static List<String> resultLines(List<String> output) {
        return List.copyOf(new LinkedHashSet<>(output.stream().filter(line -> line.startsWith("RESULT ")).toList()));
    }

    /**
     * A RESULT line's words: the numbers are figures, the rest (config=8 path=ckc, step=3) says which line it is.
     * {@code none} is a figure too, never reached ({@code recovery_ms=none}): infinite, so a side's median is
     * {@code none} if half its runs or more never got there, and the line of a run that did not recover stays in the
     * same table as one that did.
     */
    static Row parse(int round, String side, String line) {
        Map<String, Double> figures = new LinkedHashMap<>();
        List<String> label = new ArrayList<>();
        for (String word : line.substring("RESULT ".length()).trim().split("\\s+")) {
            int eq = word.indexOf('=');
            if (eq < 0) {
                label.add(word);
                continue;
            }
            String key = word.substring(0, eq);
            String value = word.substring(eq + 1);
            boolean identifies = Set.of("config", "path", "step", "op", "mode", "job", "scenario", "from", "to").contains(key);
            try {
                if (identifies) {
                    label.add(word);
                } else if (value.equals("none")) {
                    figures.put(key, Double.POSITIVE_INFINITY);
                } else {
                    figures.put(key, Double.parseDouble(value));
                }
            } catch (NumberFormatException notANumber) {
                label.add(word);
            }
        }
        return new Row(round, side, String.join(" ", label), figures);
    }

    /** One markdown table per kind of RESULT line: every run, then each side's medians. */
    static List<String> table(List<Row> rows, Map<String, String> revisions) {
        List<String> out = new ArrayList<>();
        out.add("A = " + revisions.get("A") + ", B = " + revisions.get("B") + ", rounds A B A B from stopped stacks.");
        Set<String> labels = new LinkedHashSet<>();
        rows.forEach(r -> labels.add(r.label()));
        for (String label : labels) {
            List<Row> these = rows.stream().filter(r -> r.label().equals(label)).toList();
            Set<String> keys = new LinkedHashSet<>();
            these.forEach(r -> keys.addAll(r.figures().keySet()));
            out.add("");
            if (!label.isEmpty()) {
                out.add("**" + label + "**");
                out.add("");
            }
            out.add("| run | " + String.join(" | ", keys) + " |");
            out.add("|---" + "|---".repeat(keys.size()) + "|");
            for (Row r : these) {
                out.add("| " + r.side() + r.round() + " | " + String.join(" | ", keys.stream()
                        .map(k -> format(r.figures().get(k))).toList()) + " |");
            }
            for (String side : revisions.keySet()) {
                out.add("| " + side + " median | " + String.join(" | ", keys.stream().map(k -> format(median(these.stream()
                        .filter(r -> r.side().equals(side)).map(r -> r.figures().get(k)).filter(v -> v != null)
                        .mapToDouble(Double::doubleValue).toArray()))).toList()) + " |");
            }
        }
        return out;
    }

    static Double median(double[] values) {
        if (values.length == 0) {
            return null;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    private static String format(Double value) {
        if (value == null) {
            return "";
        }
        if (value.isInfinite()) {
            return "none";
        }
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? String.valueOf(value.longValue())
                : String.format(Locale.ROOT, "%.2f", value);
    }
}
