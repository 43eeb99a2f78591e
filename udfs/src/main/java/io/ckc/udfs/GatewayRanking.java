package io.ckc.udfs;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The Gateway Load Ranking (GLR) of the PoA manager (paper section 5.2): scores the active gateways
 * from their load and connection statistics. A higher score means a lighter gateway; each gateway's
 * ideal share of the nodes is proportional to its score, In(X) = n·W(X)/ΣW, and the gateway list
 * that nodes connect by is sorted by it.
 *
 * <p>An operator writes their own by implementing this interface (public no-argument constructor)
 * and naming the class with {@code --ranking com.example.MyRanking} on the poa-manager job.
 * Implementations are serializable because Flink ships them, should be deterministic, and must
 * return a finite, non-negative score for every gateway given (a gateway scored 0 gets no nodes).
 */
public interface GatewayRanking extends Serializable {

    /** The name the ranking goes by in configuration and reports. */
    String name();

    /** Scores every gateway in {@code gateways} (never empty); higher = lighter. */
    Map<String, Double> rank(List<GatewaySnapshot> gateways);

    /** For rankings that score each gateway on its own: applies {@code score} to every gateway. */
    static Map<String, Double> scoreEach(List<GatewaySnapshot> gateways, ToDoubleFunction<GatewaySnapshot> score) {
        Map<String, Double> scores = new HashMap<>();
        for (GatewaySnapshot gateway : gateways) {
            scores.put(gateway.gatewayId(), score.applyAsDouble(gateway));
        }
        return scores;
    }
}
