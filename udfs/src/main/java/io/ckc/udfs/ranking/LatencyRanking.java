package io.ckc.udfs.ranking;

import io.ckc.udfs.GatewayRanking;
import io.ckc.udfs.GatewaySnapshot;

import java.util.List;
import java.util.Map;

/**
 * Ranks gateways by how well their nodes are served: ping rate over (1 + median latency / 50 ms).
 * Pick it when gateways sit in different network places (regions, access networks) and the nodes'
 * round trip matters more than the gateway's CPU. A gateway with no statistics yet scores as a
 * perfect one, so a new gateway is not starved.
 */
public final class LatencyRanking implements GatewayRanking {

    public static final String NAME = "latency";
    static final double REFERENCE_LATENCY_MS = 50;
    static final double FLOOR = 0.01;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Double> rank(List<GatewaySnapshot> gateways) {
        return GatewayRanking.scoreEach(gateways, g -> {
            double pingRate = g.pingRate() == null ? 1 : g.pingRate();
            double latency = g.medianLatencyMs() == null ? 0 : g.medianLatencyMs();
            return Math.max(FLOOR, pingRate / (1 + latency / REFERENCE_LATENCY_MS));
        });
    }
}
