package io.ckc.jobs.poa;

import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;

import java.util.List;

/**
 * What the per-gateway step tells the global step about one gateway.
 *
 * @param active       passed its latest liveness check
 * @param members      part {@code membersPart} of {@code membersParts} of its nodes as of its latest ping window (a
 *                     window's views carry one part each, in order); null when unchanged since the last view
 * @param gone         inactive for the retention time and forgotten by the per-gateway step: forget it too
 */
public record GatewayView(String gatewayId, boolean active, boolean draining, HelloPoA hello, LoadReport load,
                          ConnectionStatistics stats, List<String> members, int membersPart, int membersParts,
                          boolean gone) {

    /** The last view of a gateway that is forgotten. */
    public static GatewayView gone(String gatewayId) {
        return new GatewayView(gatewayId, false, false, null, null, null, null, 0, 0, true);
    }

    /** Nodes connected now: the latest load report is fresher than the latest ping window. */
    public int connected() {
        if (load != null) {
            return load.connectedMns();
        }
        return stats != null ? stats.connected() : 0;
    }
}
