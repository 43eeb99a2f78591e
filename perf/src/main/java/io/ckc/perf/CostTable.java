package io.ckc.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The cost per round trip of a {@code perf mqtt} run's fixed load ({@link MqttCommand#FIXED_CSV}): each process's CPU
 * in µs per round trip, one column per path, as Markdown. The report writes it into the results folder and, when
 * asked, into the section of perf/README.md between {@link #BEGIN} and {@link #END}, so the README's figures are the
 * newest run's that measured CKC beside the echo, and never typed by hand.
 */
final class CostTable {

    static final String FILE = "cost-per-round-trip.md";
    static final String BEGIN = "<!-- cost-per-round-trip: written by ./ckc perf mqtt from its results; do not edit -->";
    static final String END = "<!-- cost-per-round-trip: end -->";

    /** The processes a stack samples, as a reader knows them. */
    private static final Map<String, String> PROCESS_NAMES = Map.of(
            "flink-embedded", "Flink (embedded MiniCluster: all jobs)",
            "flink-jobmanager", "Flink JobManager",
            "flink-taskmanager", "Flink TaskManager",
            "gateways", "gateway",
            "kafka", "Kafka broker",
            "simulator", "simulator (the nodes; the echo client)");

    private CostTable() {
    }

    /**
     * The table of a results folder, or empty if it has no fixed load. {@code command}: the command line that made
     * it, for the caption (may be null).
     */
    static Optional<String> markdown(Results results, String command) throws IOException {
        Path csv = results.dir().resolve(MqttCommand.FIXED_CSV);
        if (!Files.exists(csv)) {
            return Optional.empty();
        }
        // path -> process -> µs per round trip, in the order of the run
        Map<String, Map<String, Double>> costs = new LinkedHashMap<>();
        Map<String, String[]> firstRow = new LinkedHashMap<>();
        List<String> processes = new ArrayList<>();
        double rate = Double.NaN;
        String nodes = "";
        for (String line : Files.readAllLines(csv).stream().skip(1).filter(l -> !l.isBlank()).toList()) {
            String[] f = line.split(",");
            rate = Double.parseDouble(f[1]);
            nodes = f[2];
            firstRow.putIfAbsent(f[0], f);
            costs.computeIfAbsent(f[0], k -> new LinkedHashMap<>()).put(f[8], Double.parseDouble(f[9]) / 100 / rate * 1e6);
            if (!processes.contains(f[8])) {
                processes.add(f[8]);
            }
        }
        if (costs.isEmpty()) {
            return Optional.empty();
        }
        List<String> paths = List.copyOf(costs.keySet());
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "%s, %s ([results](results/%s/)): each path at %,.0f msg/s from %,d nodes, "
                        + "one after the other on one stack; a process's CPU in µs per round trip is its share of a core "
                        + "over the fixed load divided by the rate.%n%n",
                command == null ? "`./ckc perf mqtt`" : "`" + command + "`", date(results), results.dir().getFileName(),
                rate, Integer.parseInt(nodes)));
        md.append("| µs of CPU per round trip |");
        paths.forEach(p -> md.append(' ').append(p).append(" |"));
        md.append('\n').append("|---|");
        paths.forEach(p -> md.append("---|"));
        md.append('\n');
        for (String process : processes) {
            md.append("| ").append(PROCESS_NAMES.getOrDefault(process, process)).append(" |");
            for (String path : paths) {
                Double us = costs.get(path).get(process);
                md.append(' ').append(us == null ? "–" : String.format(Locale.ROOT, "%,.0f", us)).append(" |");
            }
            md.append('\n');
        }
        md.append("| **all** |");
        paths.forEach(p -> md.append(String.format(Locale.ROOT, " **%,.0f** |",
                costs.get(p).values().stream().mapToDouble(Double::doubleValue).sum())));
        md.append('\n').append("| RTT p50 / p99, ms |");
        paths.forEach(p -> md.append(' ').append(firstRow.get(p)[5]).append(" / ").append(firstRow.get(p)[6])
                .append(" |"));
        md.append('\n');
        return Optional.of(md.toString());
    }

    /** Whether a table compares CKC with the echo: it has the path {@code ckc} and the path {@code kafka}. */
    static boolean comparesCkcWithTheEcho(Results results) throws IOException {
        Path csv = results.dir().resolve(MqttCommand.FIXED_CSV);
        if (!Files.exists(csv)) {
            return false;
        }
        List<String> paths = Files.readAllLines(csv).stream().skip(1).map(l -> l.split(",")[0]).toList();
        return paths.contains(Results.CKC) && paths.contains(Results.KAFKA);
    }

    /** A document with the text between {@link #BEGIN} and {@link #END} replaced by {@code table}. */
    static String splice(String document, String table) {
        int begin = document.indexOf(BEGIN);
        int end = document.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("no section between " + BEGIN + " and " + END);
        }
        return document.substring(0, begin + BEGIN.length()) + "\n" + table + document.substring(end);
    }

    /** The day a results folder was made, from its name (yyyy-MM-dd-HHmm-scenario). */
    private static String date(Results results) {
        String name = results.dir().getFileName().toString();
        return name.length() >= 10 && name.charAt(4) == '-' ? name.substring(0, 10) : name;
    }
}
