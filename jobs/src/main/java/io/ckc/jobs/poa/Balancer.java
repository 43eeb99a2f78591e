package io.ckc.jobs.poa;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Load balancing by handover (paper section 5.2) with the churn control the paper left open. Ideal
 * counts In(X) = n·W(X)/ΣW, rounded by largest remainder so they sum to n. Nothing moves while every
 * gateway is within the imbalance threshold (absolute and relative, both must be exceeded); when one
 * is not, nodes move from gateways above their ideal count to those below it, at most
 * {@code maxHandoversPerRound} per round, never a node handed over within the cooldown. A draining
 * gateway has weight 0 and gives up all its nodes, but only once it has left the gateway list.
 */
public final class Balancer implements Serializable {

    /**
     * @param imbalanceAbs   a gateway must be more than this many nodes off its ideal count...
     * @param imbalanceRel   ...and more than this share of it, for a round to move anyone
     * @param maxHandoversPerRound cap on handovers ordered in one round
     */
    public record Settings(int imbalanceAbs, double imbalanceRel, int maxHandoversPerRound) implements Serializable {
        public Settings {
            if (imbalanceAbs < 0 || imbalanceRel < 0 || maxHandoversPerRound < 0) {
                throw new IllegalArgumentException("imbalance thresholds and handover cap must not be negative");
            }
        }
    }

    /**
     * One active gateway as the balancer sees it.
     *
     * @param members  its nodes (from its latest ping window), the candidates for a handover: read only from a donor
     * @param draining being drained by the operator
     * @param unlisted absent from the gateway list already sent, so its nodes may be moved off
     */
    public record Gateway(String gatewayId, double score, int connected, Supplier<List<String>> members, boolean draining,
                          boolean unlisted) {
    }

    /** Move one node from one gateway to another. */
    public record Move(String mnId, String from, String to) {
    }

    /** What a round decided. */
    public record Plan(Map<String, Integer> ideal, List<Move> moves, int inCooldown, String decision) {
    }

    private final Settings settings;

    public Balancer(Settings settings) {
        this.settings = settings;
    }

    /** In(X) = n·W(X)/ΣW for every gateway, in the given order, rounded so the counts sum to n. */
    public static Map<String, Integer> idealCounts(Map<String, Double> weights, int n) {
        double total = weights.values().stream().mapToDouble(Double::doubleValue).sum();
        Map<String, Integer> ideal = new LinkedHashMap<>();
        if (total <= 0) {
            weights.keySet().forEach(id -> ideal.put(id, 0));
            return ideal;
        }
        Map<String, Double> remainders = new HashMap<>();
        int assigned = 0;
        for (Map.Entry<String, Double> e : weights.entrySet()) {
            double exact = n * e.getValue() / total;
            int floor = (int) Math.floor(exact);
            ideal.put(e.getKey(), floor);
            remainders.put(e.getKey(), exact - floor);
            assigned += floor;
        }
        List<String> byRemainder = new ArrayList<>(weights.keySet());
        byRemainder.sort(Comparator.comparing((String id) -> -remainders.get(id)).thenComparing(id -> id));
        for (int i = 0; i < n - assigned; i++) {
            String id = byRemainder.get(i % byRemainder.size());
            ideal.merge(id, 1, Integer::sum);
        }
        return ideal;
    }

    /** The ideal counts of these gateways: a draining one has weight 0. */
    public static Map<String, Integer> idealCounts(List<Gateway> gateways) {
        Map<String, Double> weights = new LinkedHashMap<>();
        gateways.forEach(g -> weights.put(g.gatewayId(), g.draining() ? 0.0 : Math.max(0, g.score())));
        return idealCounts(weights, nodes(gateways));
    }

    public static int nodes(List<Gateway> gateways) {
        return gateways.stream().mapToInt(Gateway::connected).sum();
    }

    /** Plans one round; {@code inCooldown} says whether a node was handed over too recently to move again. */
    public Plan plan(List<Gateway> gateways, Predicate<String> inCooldown) {
        Map<String, Integer> ideal = idealCounts(gateways);
        int n = nodes(gateways);
        if (n == 0) {
            return new Plan(ideal, List.of(), 0, "no-nodes");
        }
        if (gateways.stream().allMatch(g -> g.draining() || g.score() <= 0)) {
            return new Plan(ideal, List.of(), 0, "no-capacity");
        }
        boolean drain = false;
        boolean outsideThreshold = false;
        int largestDifference = 0;
        for (Gateway g : gateways) {
            int difference = Math.abs(g.connected() - ideal.get(g.gatewayId()));
            largestDifference = Math.max(largestDifference, difference);
            drain |= g.draining() && g.unlisted() && g.connected() > 0;
            outsideThreshold |= difference > settings.imbalanceAbs()
                    && difference > settings.imbalanceRel() * ideal.get(g.gatewayId());
        }
        if (!drain && !outsideThreshold) {
            return new Plan(ideal, List.of(), 0, largestDifference == 0 ? "balanced" : "within-threshold");
        }
        Map<String, Integer> deficits = new HashMap<>();
        List<Gateway> donors = new ArrayList<>();
        for (Gateway g : gateways) {
            int difference = g.connected() - ideal.get(g.gatewayId());
            if (difference > 0 && (!g.draining() || g.unlisted())) {
                donors.add(g);
            } else if (difference < 0 && !g.draining()) {
                deficits.put(g.gatewayId(), -difference);
            }
        }
        donors.sort(Comparator.comparing((Gateway g) -> -(g.connected() - ideal.get(g.gatewayId())))
                .thenComparing(Gateway::gatewayId));
        int budget = settings.maxHandoversPerRound();
        List<Move> moves = new ArrayList<>();
        int cooling = 0;
        for (Gateway donor : donors) {
            int quota = Math.min(donor.connected() - ideal.get(donor.gatewayId()), budget - moves.size());
            for (String mnId : donor.members().get()) {
                if (quota == 0) {
                    break;
                }
                String target = largestDeficit(deficits);
                if (target == null) {
                    break;
                }
                if (inCooldown.test(mnId)) {
                    cooling++;
                    continue;
                }
                moves.add(new Move(mnId, donor.gatewayId(), target));
                deficits.merge(target, -1, Integer::sum);
                quota--;
            }
        }
        return new Plan(ideal, moves, cooling, drain ? "draining" : "rebalancing");
    }

    private static String largestDeficit(Map<String, Integer> deficits) {
        String best = null;
        int largest = 0;
        for (Map.Entry<String, Integer> e : deficits.entrySet()) {
            if (e.getValue() > largest || (e.getValue() == largest && largest > 0 && e.getKey().compareTo(best) < 0)) {
                best = e.getKey();
                largest = e.getValue();
            }
        }
        return largest > 0 ? best : null;
    }
}
