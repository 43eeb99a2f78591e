package io.ckc.perf;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * What {@code ./ckc profile} prints: per process, its on-CPU samples, where they fall by component
 * (Kafka client, Netty, Jackson, RocksDB, Flink, JDK, CKC's own code) and the hottest frames by self
 * time. Reads each {@code <process>.jfr} of a folder, keeps only {@code jdk.ExecutionSample} (a
 * thread running Java code; JFR's native-method samples are threads waiting in epoll and the like,
 * not CPU) and writes {@code <process>.collapsed}: one line per distinct stack, root first, frames
 * separated by ';', then its sample count, which async-profiler's converter turns into a flame graph.
 * Where the folder also holds a Linux perf recording, {@link NativeProfile} adds what JFR cannot see.
 */
public final class ProfileSummary {

    /** Leaf-frame prefix → component; the first match wins, so the more specific prefixes come first. */
    private static final List<Map.Entry<String, String>> COMPONENTS = List.of(
            Map.entry("io.ckc.", "ckc"),
            Map.entry("org.apache.kafka.", "kafka"), Map.entry("kafka.", "kafka"),
            Map.entry("io.netty.", "netty"),
            Map.entry("com.fasterxml.jackson", "jackson"), Map.entry("org.apache.flink.shaded.jackson", "jackson"),
            Map.entry("org.rocksdb.", "rocksdb"),
            Map.entry("org.apache.flink.", "flink"),
            Map.entry("org.HdrHistogram", "hdrhistogram"),
            Map.entry("java.", "jdk"), Map.entry("jdk.", "jdk"), Map.entry("sun.", "jdk"), Map.entry("com.sun.", "jdk"));

    private ProfileSummary() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: ProfileSummary DIR (a folder of <process>.jfr files)");
            System.exit(2);
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(Path.of(args[0]))) {
            files = list.filter(p -> p.getFileName().toString().endsWith(".jfr")).sorted().toList();
        }
        for (Path file : files) {
            String process = file.getFileName().toString().replace(".jfr", "");
            Map<String, Long> stacks = collapse(file);
            List<String> lines = new ArrayList<>(stacks.size());
            stacks.forEach((stack, count) -> lines.add(stack + " " + count));
            Files.write(file.resolveSibling(process + ".collapsed"), lines);
            print(process, stacks, System.out);
        }
        NativeProfile samples = NativeProfile.readFrom(Path.of(args[0]));
        if (samples != null) {
            samples.print(System.out);
        }
    }

    /** The recording's on-CPU samples: sample count by stack, frames root first, separated by ';'. */
    static Map<String, Long> collapse(Path jfr) throws IOException {
        Map<String, Long> stacks = new HashMap<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(jfr)) {
            if (!event.getEventType().getName().equals("jdk.ExecutionSample") || event.getStackTrace() == null) {
                continue;
            }
            List<RecordedFrame> frames = event.getStackTrace().getFrames(); // leaf first
            StringBuilder stack = new StringBuilder();
            for (int i = frames.size() - 1; i >= 0; i--) {
                RecordedFrame frame = frames.get(i);
                if (stack.length() > 0) {
                    stack.append(';');
                }
                stack.append(frame.getMethod().getType().getName()).append('.').append(frame.getMethod().getName());
            }
            stacks.merge(stack.toString(), 1L, Long::sum);
        }
        return stacks;
    }

    /** Prints one process's summary from its samples by stack. */
    static void print(String process, Map<String, Long> stacks, PrintStream out) {
        Map<String, Long> selfByFrame = new HashMap<>();
        Map<String, Long> byComponent = new HashMap<>();
        long total = 0;
        for (Map.Entry<String, Long> entry : stacks.entrySet()) {
            String stack = entry.getKey();
            long samples = entry.getValue();
            String leaf = stack.substring(stack.lastIndexOf(';') + 1);
            selfByFrame.merge(leaf, samples, Long::sum);
            byComponent.merge(componentOf(leaf), samples, Long::sum);
            total += samples;
        }
        out.printf(Locale.ROOT, "== %s: %d CPU samples%n", process, total);
        if (total == 0) {
            return;
        }
        long all = total;
        out.print("   by component (self time):");
        sortedByValue(byComponent).forEach(e ->
                out.printf(Locale.ROOT, " %s %.1f%%", e.getKey(), 100.0 * e.getValue() / all));
        out.println();
        List<Map.Entry<String, Long>> hottest = sortedByValue(selfByFrame);
        for (Map.Entry<String, Long> e : hottest.subList(0, Math.min(12, hottest.size()))) {
            out.printf(Locale.ROOT, "   %5.1f%%  %s%n", 100.0 * e.getValue() / all, e.getKey());
        }
    }

    static String componentOf(String frame) {
        for (Map.Entry<String, String> c : COMPONENTS) {
            if (frame.startsWith(c.getKey())) {
                return c.getValue();
            }
        }
        return "other";
    }

    /** The entries, largest count first; {@link NativeProfile} ranks its shares with it too. */
    static List<Map.Entry<String, Long>> sortedByValue(Map<String, Long> counts) {
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(counts.entrySet());
        sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        return sorted;
    }
}
