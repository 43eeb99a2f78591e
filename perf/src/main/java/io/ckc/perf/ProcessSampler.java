package io.ckc.perf;

import oshi.SystemInfo;
import oshi.software.os.OSProcess;
import oshi.software.os.OperatingSystem;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * CPU and memory of each process of a run (Kafka, Flink, each gateway, the simulator), sampled once
 * a second with OSHI while the run lasts. CPU is in percent of one core (200% = both cores of a
 * 2-core machine busy), memory is the resident set size.
 */
final class ProcessSampler implements AutoCloseable {

    /** The name this process, the simulator that makes the load, is sampled under. */
    static final String LOAD_GENERATOR = "simulator";

    /** One look at one process. */
    record Sample(double seconds, String component, double cpuPercent, double rssMb) {
    }

    /** One component over the whole run. */
    record Usage(String component, double meanCpuPercent, double maxCpuPercent, double maxRssMb) {
    }

    private final OperatingSystem os = new SystemInfo().getOperatingSystem();
    private final Map<String, Integer> pids;
    private final Map<String, OSProcess> previous = new HashMap<>();
    private final List<Sample> samples = new ArrayList<>();
    private final ScheduledExecutorService timer;
    private final long start = System.nanoTime();

    ProcessSampler(Map<String, Integer> pids) {
        this.pids = new LinkedHashMap<>(pids);
        pids.forEach((name, pid) -> {
            OSProcess process = os.getProcess(pid);
            if (process != null) {
                previous.put(name, process);
            }
        });
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "process-sampler");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
    }

    /**
     * The stack's processes from {@code ./ckc}'s pid files ({@code .ckc/pids/<name>.pid}), if the
     * folder is given and exists, and this process as {@code simulator}.
     */
    static Map<String, Integer> stackProcesses(Path pidsDir) throws IOException {
        Map<String, Integer> pids = new LinkedHashMap<>();
        if (pidsDir != null && Files.isDirectory(pidsDir)) {
            try (var files = Files.list(pidsDir)) {
                for (Path file : files.sorted().toList()) {
                    String name = file.getFileName().toString();
                    if (name.endsWith(".pid")) {
                        pids.put(name.substring(0, name.length() - 4), Integer.parseInt(Files.readString(file).trim()));
                    }
                }
            }
        }
        pids.put(LOAD_GENERATOR, (int) ProcessHandle.current().pid());
        return pids;
    }

    /** The stack's processes ({@link #stackProcesses}) and those the load path runs itself. */
    static Map<String, Integer> processes(Path pidsDir, LoadPath path) throws IOException {
        Map<String, Integer> pids = stackProcesses(pidsDir);
        pids.putAll(path.processes());
        return pids;
    }

    private synchronized void sample() {
        double seconds = (System.nanoTime() - start) / 1e9;
        pids.forEach((name, pid) -> {
            OSProcess now = os.getProcess(pid);
            OSProcess before = previous.get(name);
            if (now == null) {
                return;
            }
            double cpu = 0;
            if (before != null) {
                long busyMs = (now.getKernelTime() + now.getUserTime()) - (before.getKernelTime() + before.getUserTime());
                long wallMs = now.getUpTime() - before.getUpTime();
                cpu = wallMs <= 0 ? 0 : 100.0 * busyMs / wallMs;
            }
            previous.put(name, now);
            samples.add(new Sample(seconds, name, cpu, now.getResidentSetSize() / 1048576.0));
        });
    }

    /** Seconds since sampling began, on the samples' clock. */
    double elapsedSeconds() {
        return (System.nanoTime() - start) / 1e9;
    }

    synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** Per component: mean and peak CPU, peak memory. */
    static List<Usage> usage(List<Sample> samples) {
        Map<String, List<Sample>> byComponent = new LinkedHashMap<>();
        samples.forEach(s -> byComponent.computeIfAbsent(s.component(), k -> new ArrayList<>()).add(s));
        List<Usage> usage = new ArrayList<>();
        byComponent.forEach((component, list) -> usage.add(new Usage(component,
                list.stream().mapToDouble(Sample::cpuPercent).average().orElse(0),
                list.stream().mapToDouble(Sample::cpuPercent).max().orElse(0),
                list.stream().mapToDouble(Sample::rssMb).max().orElse(0))));
        return usage;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
