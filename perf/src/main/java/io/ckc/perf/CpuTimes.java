package io.ckc.perf;

import oshi.SystemInfo;
import oshi.software.os.OSProcess;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The CPU time each process of a run has used so far (user and kernel, from OSHI, as {@link ProcessSampler} reads it),
 * taken at one instant: the CPU of a stretch of a run is the difference of two. A process gone by then is left out.
 */
record CpuTimes(long nanos, Map<String, Long> cpuMs) {

    /** Now, for the processes by name ({@link ProcessSampler#stackProcesses} gives the stack's). */
    static CpuTimes now(Map<String, Integer> pids) {
        var os = new SystemInfo().getOperatingSystem();
        Map<String, Long> cpuMs = new LinkedHashMap<>();
        pids.forEach((name, pid) -> {
            OSProcess process = os.getProcess(pid);
            if (process != null) {
                cpuMs.put(name, process.getKernelTime() + process.getUserTime());
            }
        });
        return new CpuTimes(System.nanoTime(), cpuMs);
    }

    /** Wall-clock seconds from {@code before} to this. */
    double secondsSince(CpuTimes before) {
        return (nanos - before.nanos) / 1e9;
    }

    /** Per process in both: CPU milliseconds from {@code before} to this. */
    Map<String, Long> cpuMsSince(CpuTimes before) {
        Map<String, Long> used = new LinkedHashMap<>();
        cpuMs.forEach((name, ms) -> {
            Long then = before.cpuMs.get(name);
            if (then != null) {
                used.put(name, ms - then);
            }
        });
        return used;
    }

    /** Per process in both: its CPU from {@code before} to this, in percent of one core. */
    Map<String, Double> percentSince(CpuTimes before) {
        double wallMs = secondsSince(before) * 1000;
        Map<String, Double> percent = new LinkedHashMap<>();
        cpuMsSince(before).forEach((name, ms) -> percent.put(name, wallMs <= 0 ? 0 : 100.0 * ms / wallMs));
        return percent;
    }
}
