package io.ckc.udfs;

/**
 * What a {@link GatewayRanking} knows of one active gateway: its latest load report and the
 * statistics of its latest ping window. Shares are in [0, 1]; latency fields are in milliseconds
 * and null when the gateway has no ping statistics yet (or no pong arrived in its window).
 *
 * @param poolUtilisation share of the last report period the gateway's I/O threads were busy
 * @param processCpuLoad the gateway process's share of the machine's CPU
 * @param pingRate share of its nodes whose pong arrived inside the window; null before the first window
 */
public record GatewaySnapshot(String gatewayId, int connectedMns, int poolSize, double poolUtilisation,
                              double cpuLoad, double processCpuLoad, long memoryTotalBytes, double memoryFreeShare,
                              long jvmMemoryTotalBytes, double jvmMemoryFreeShare, Double pingRate,
                              Double meanLatencyMs, Double medianLatencyMs, Double maxLatencyMs) {
}
