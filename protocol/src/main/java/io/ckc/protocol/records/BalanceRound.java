package io.ckc.protocol.records;

import java.util.List;

/**
 * One load-balancing round of the PoA manager, on {@code ckc.gw.rounds}: the scores, the ideal
 * count In(X) = n·W(X)/ΣW of every active gateway, and the handovers ordered. For dashboards and
 * for measuring how fast the fleet settles.
 *
 * @param handovers handovers ordered this round
 * @param inCooldown nodes that would have moved but were handed over too recently
 * @param decision why the round moved nodes or not (balanced, within-threshold, waiting-for-reports,
 *                 gateway-silent, rebalancing, draining)
 */
public record BalanceRound(long round, long timestamp, String ranking, int nodes, List<Share> gateways, int handovers,
                           int inCooldown, String decision) {

    public BalanceRound {
        gateways = gateways == null ? List.of() : List.copyOf(gateways);
    }

    /** One gateway's place in the round. */
    public record Share(String gatewayId, double score, int connected, int ideal, int handoversOut, int handoversIn,
                        boolean draining) {
    }
}
