package io.ckc.gateway.core;

import io.ckc.protocol.records.LoadReport;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * Samples what a LoadReport carries: how busy the I/O threads were since the last sample (their CPU
 * time over wall time), machine and process CPU load, machine and JVM memory.
 */
final class LoadSampler {

    private final String gatewayId;
    private final long periodMs;
    private final List<Long> ioThreadIds;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long lastWallNanos = System.nanoTime();
    private long lastCpuNanos;

    LoadSampler(String gatewayId, long periodMs, List<Long> ioThreadIds) {
        this.gatewayId = gatewayId;
        this.periodMs = periodMs;
        this.ioThreadIds = List.copyOf(ioThreadIds);
        this.lastCpuNanos = ioCpuNanos();
    }

    LoadReport sample(int connectedMns) {
        long wall = System.nanoTime();
        long cpu = ioCpuNanos();
        double utilisation = wall > lastWallNanos
                ? clamp((double) (cpu - lastCpuNanos) / ((wall - lastWallNanos) * (double) ioThreadIds.size())) : 0;
        lastWallNanos = wall;
        lastCpuNanos = cpu;
        Runtime runtime = Runtime.getRuntime();
        long heapLimit = runtime.maxMemory();
        long heapUsed = runtime.totalMemory() - runtime.freeMemory();
        long machineTotal = os.getTotalMemorySize();
        return new LoadReport(gatewayId, System.currentTimeMillis(), periodMs, ioThreadIds.size(), utilisation,
                clamp(os.getCpuLoad()), clamp(os.getProcessCpuLoad()), machineTotal,
                machineTotal > 0 ? clamp((double) os.getFreeMemorySize() / machineTotal) : 0,
                heapLimit, clamp(1 - (double) heapUsed / heapLimit), connectedMns);
    }

    private long ioCpuNanos() {
        if (!threads.isThreadCpuTimeSupported()) {
            return 0;
        }
        long total = 0;
        for (long id : ioThreadIds) {
            total += Math.max(0, threads.getThreadCpuTime(id));
        }
        return total;
    }

    /** The MXBeans answer a negative value while they have no sample yet. */
    private static double clamp(double share) {
        return Double.isNaN(share) ? 0 : Math.max(0, Math.min(1, share));
    }
}
