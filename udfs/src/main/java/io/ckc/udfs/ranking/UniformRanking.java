package io.ckc.udfs.ranking;

import io.ckc.udfs.GatewayRanking;
import io.ckc.udfs.GatewaySnapshot;

import java.util.List;
import java.util.Map;

/**
 * Scores every gateway alike, so each gets an even share of the nodes (the list breaks ties by
 * fewer connected nodes). Pick it for identical gateways on identical machines: the ideal counts
 * never move with measurement noise, so nodes move only when the counts really differ.
 */
public final class UniformRanking implements GatewayRanking {

    public static final String NAME = "uniform";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Double> rank(List<GatewaySnapshot> gateways) {
        return GatewayRanking.scoreEach(gateways, g -> 1.0);
    }
}
