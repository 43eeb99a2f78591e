package io.ckc.protocol.records;

/**
 * A gateway's resource use, sent every report period on {@code ckc.gw.load} keyed by gateway id;
 * also its heartbeat. Shares are in [0, 1].
 *
 * @param periodMs the report period: the PoA manager counts missed periods from it
 * @param poolSize I/O threads serving mobile nodes
 * @param poolUtilisation share of the last period those threads were busy
 * @param cpuLoad machine CPU load
 * @param processCpuLoad this gateway process's CPU load
 * @param jvmMemoryTotalBytes the heap limit
 * @param jvmMemoryFreeShare share of the heap limit not in use
 */
public record LoadReport(String gatewayId, long timestamp, long periodMs, int poolSize, double poolUtilisation,
                         double cpuLoad, double processCpuLoad, long memoryTotalBytes, double memoryFreeShare,
                         long jvmMemoryTotalBytes, double jvmMemoryFreeShare, int connectedMns) {
}
