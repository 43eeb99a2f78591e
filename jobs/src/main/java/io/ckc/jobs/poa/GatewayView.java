package io.ckc.jobs.poa;

import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;

import java.util.List;

/**
 * What the per-gateway step tells the global step about one gateway.
 *
 * @param active   passed its latest liveness check
 * @param members  its nodes as of its latest complete ping window; null when unchanged since the last view
 */
public record GatewayView(String gatewayId, boolean active, boolean draining, HelloPoA hello, LoadReport load,
                          ConnectionStatistics stats, List<String> members) {

    /** Nodes connected now: the latest load report is fresher than the latest ping window. */
    public int connected() {
        if (load != null) {
            return load.connectedMns();
        }
        return stats != null ? stats.connected() : 0;
    }
}
