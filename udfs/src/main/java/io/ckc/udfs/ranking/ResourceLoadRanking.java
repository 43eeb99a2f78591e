package io.ckc.udfs.ranking;

import io.ckc.udfs.GatewayRanking;
import io.ckc.udfs.GatewaySnapshot;

import java.util.List;
import java.util.Map;

/**
 * Ranks gateways by resource headroom: mostly how idle their I/O threads are, then free heap, then
 * process CPU. Pick it when gateways run on machines of different size or share machines with other
 * work: the busier one gets fewer nodes. Scores move with load, so pair it with a non-zero
 * imbalance threshold to avoid moving nodes for noise.
 */
public final class ResourceLoadRanking implements GatewayRanking {

    public static final String NAME = "resource-load";
    /** No gateway scores below this: a saturated gateway keeps a small share instead of dividing by zero. */
    static final double FLOOR = 0.01;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Double> rank(List<GatewaySnapshot> gateways) {
        return GatewayRanking.scoreEach(gateways, g -> Math.max(FLOOR,
                0.6 * (1 - g.poolUtilisation()) + 0.2 * g.jvmMemoryFreeShare() + 0.2 * (1 - g.processCpuLoad())));
    }
}
