package io.ckc.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * The part of {@code ./ckc profile} that JDK Flight Recorder cannot see: Linux perf's system-wide
 * {@code cpu-clock} samples of every thread, kernel included. JFR samples only threads running Java
 * code, so a JVM's JIT compiler and GC threads, its system calls and the kernel's network stack are
 * missing from it; here they are counted, per stack process, as a share of one core.
 *
 * <p>Reads {@code native.script} (the output of {@code perf script -F comm,pid,tid,ip,sym,dso}, with
 * JIT-compiled Java named through each JVM's {@code jcmd PID Compiler.perfmap}) and
 * {@code native.properties} ({@code hz}, {@code seconds}, and {@code process.<name>=<pid>} per
 * stack process). Samples of any other process are summed as "outside the stack".
 */
final class NativeProfile {

    static final String SCRIPT = "native.script";
    static final String PROPERTIES = "native.properties";

    /** {@code comm pid/tid ip symbol (dso)}; comm is right-aligned to 15 characters and may hold spaces. */
    private static final Pattern LINE = Pattern.compile("^\\s*(.*?)\\s+(\\d+)/(\\d+)\\s+[0-9a-f]+\\s+(.*?)\\s*\\(([^()]*)\\)\\s*$");

    /** One sample: the thread's name, its process and where the CPU was. */
    record Sample(String thread, int pid, String symbol, String dso) {

        /** What ran: the JIT compiler, the collector (and safepoint work) or anything else. */
        String threadKind() {
            if (thread.startsWith("C1 Compiler") || thread.startsWith("C2 Compiler")) {
                return "JIT compiler";
            }
            if (thread.startsWith("GC Thread") || thread.startsWith("G1 ") || thread.startsWith("VM Thread")
                    || thread.startsWith("ZWorker") || thread.startsWith("ZDriver") || thread.startsWith("ZDirector")) {
                return "GC and safepoints";
            }
            return "other threads";
        }

        /** Which code: the kernel, JIT-compiled Java, the JVM itself or native libraries. */
        String codeKind() {
            if (dso.equals("[kernel.kallsyms]")) {
                return "kernel";
            }
            if (dso.startsWith("/tmp/perf-") || dso.startsWith("[JIT]")) {
                return "compiled Java";
            }
            if (dso.endsWith("libjvm.so")) {
                return "JVM";
            }
            return dso.equals("[unknown]") ? "unknown" : "native libraries";
        }

        /** The thread's name without its number: a pool's threads count together. */
        String threadGroup() {
            String group = thread.replaceAll("[-#_. ]*\\d+$", "");
            return group.isEmpty() ? thread : group;
        }
    }

    private final Map<String, Integer> processes; // name -> pid, in the order to print
    private final double hz;
    private final double seconds;
    private final List<Sample> samples;

    NativeProfile(Map<String, Integer> processes, double hz, double seconds, List<Sample> samples) {
        this.processes = processes;
        this.hz = hz;
        this.seconds = seconds;
        this.samples = samples;
    }

    /** The native recording in a profile folder, or null when it has none (no Linux perf on the machine). */
    static NativeProfile readFrom(Path dir) throws IOException {
        Path script = dir.resolve(SCRIPT);
        if (!Files.isRegularFile(script)) {
            script = dir.resolve(SCRIPT + ".gz"); // as ./ckc profile keeps it
        }
        Path properties = dir.resolve(PROPERTIES);
        if (!Files.isRegularFile(script) || !Files.isRegularFile(properties)) {
            return null;
        }
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(properties)) {
            props.load(reader);
        }
        Map<String, Integer> processes = new TreeMap<>();
        for (String key : props.stringPropertyNames()) {
            if (key.startsWith("process.")) {
                processes.put(key.substring("process.".length()), Integer.parseInt(props.getProperty(key).trim()));
            }
        }
        List<Sample> samples = new ArrayList<>();
        InputStream in = Files.newInputStream(script);
        if (script.getFileName().toString().endsWith(".gz")) {
            in = new GZIPInputStream(in);
        }
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                Sample sample = parse(line);
                if (sample != null) {
                    samples.add(sample);
                }
            }
        }
        return new NativeProfile(processes, Double.parseDouble(props.getProperty("hz")),
                Double.parseDouble(props.getProperty("seconds")), samples);
    }

    /** One line of {@code perf script}, or null for a line that is not a sample. */
    static Sample parse(String line) {
        Matcher m = LINE.matcher(line);
        if (!m.matches()) {
            return null;
        }
        return new Sample(m.group(1).trim(), Integer.parseInt(m.group(2)), m.group(4), m.group(5));
    }

    /** Per stack process: share of one core, by kind of thread, by kind of code, busiest threads, hottest symbols. */
    void print(PrintStream out) {
        double oneCore = hz * seconds;
        out.printf(Locale.ROOT, "== native: Linux perf cpu-clock samples at %.0f Hz for %.0f s, every thread and the kernel "
                + "(%% of one core)%n", hz, seconds);
        Map<Integer, String> nameOf = new HashMap<>();
        processes.forEach((name, pid) -> nameOf.put(pid, name));
        Map<String, List<Sample>> byProcess = new LinkedHashMap<>();
        processes.keySet().forEach(name -> byProcess.put(name, new ArrayList<>()));
        Map<String, Long> outside = new HashMap<>();
        long outsideTotal = 0;
        long idle = 0;
        for (Sample sample : samples) {
            String name = nameOf.get(sample.pid());
            if (name != null) {
                byProcess.get(name).add(sample);
            } else if (sample.pid() == 0) {
                idle++; // the kernel's idle task ("swapper"): a core with nothing to run
            } else if (!sample.thread().equals("perf") && !sample.thread().equals("perf-exec")) {
                outside.merge(sample.threadGroup(), 1L, Long::sum);
                outsideTotal++;
            }
        }
        byProcess.forEach((name, own) -> {
            out.printf(Locale.ROOT, "%-16s %5.1f%% of one core%n", name, 100.0 * own.size() / oneCore);
            if (own.isEmpty()) {
                return;
            }
            out.println("   by thread: " + shares(count(own, Sample::threadKind), own.size(), 3));
            out.println("   by code:   " + shares(count(own, Sample::codeKind), own.size(), 5));
            out.println("   threads:   " + shares(count(own, Sample::threadGroup), own.size(), 6));
            out.println("   symbols:   " + shares(count(own, s -> shorten(s.symbol())), own.size(), 5));
        });
        out.printf(Locale.ROOT, "outside the stack %5.1f%% of one core: %s%n", 100.0 * outsideTotal / oneCore,
                shares(outside, Math.max(1, outsideTotal), 4));
        out.printf(Locale.ROOT, "idle              %5.1f%% of one core%n", 100.0 * idle / oneCore);
    }

    /** The share of each key among {@code total}, largest first, the first {@code limit}. */
    private static String shares(Map<String, Long> counts, long total, int limit) {
        List<Map.Entry<String, Long>> sorted = ProfileSummary.sortedByValue(counts);
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, Long> e : sorted.subList(0, Math.min(limit, sorted.size()))) {
            parts.add(String.format(Locale.ROOT, "%s %.1f%%", e.getKey(), 100.0 * e.getValue() / total));
        }
        return String.join(", ", parts);
    }

    private static Map<String, Long> count(List<Sample> samples, Function<Sample, String> key) {
        Map<String, Long> counts = new HashMap<>();
        samples.forEach(s -> counts.merge(key.apply(s), 1L, Long::sum));
        return counts;
    }

    /** A JIT symbol is a whole signature: keep the class and method. */
    static String shorten(String symbol) {
        int paren = symbol.indexOf('(');
        String head = paren < 0 ? symbol : symbol.substring(0, paren);
        int space = head.lastIndexOf(' ');
        return space < 0 ? head : head.substring(space + 1);
    }
}
