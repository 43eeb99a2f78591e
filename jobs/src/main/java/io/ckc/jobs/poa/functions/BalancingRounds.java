package io.ckc.jobs.poa.functions;

import io.ckc.jobs.poa.Balancer;
import io.ckc.jobs.poa.GatewayOrder;
import io.ckc.jobs.poa.GatewayView;
import io.ckc.jobs.poa.PoaSettings;
import io.ckc.protocol.records.BalanceRound;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GatewayEndpoints;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The PoA manager's balancing rounds, part of {@link BalanceGateways}' keyed state: each round plans
 * handovers with the {@link Balancer} (ideal counts by score, anti-churn), sends them to the donor
 * gateways, and waits for the moved nodes to arrive before the next round moves anything, so that no
 * round moves the same surplus twice. Nodes handed over are remembered for the cooldown only.
 */
final class BalancingRounds {

    /** What a round needs to know of one active gateway besides its view. */
    interface Members {
        List<String> of(String gatewayId) throws Exception;
    }

    private final PoaSettings settings;
    private final Balancer balancer;
    private final MapState<String, Long> handedOverAt;
    private final ValueState<Long> round;
    private final ValueState<Long> lastMovesAt;
    private final MapState<String, Integer> recipientCountAfterMoves;
    private final MapState<String, Integer> donorHandedOut;
    private final ValueState<Integer> lastMoves;
    private final Counter handovers;

    BalancingRounds(PoaSettings settings, RuntimeContext state) {
        this.settings = settings;
        this.balancer = new Balancer(settings.balancer());
        handedOverAt = state.getMapState(new MapStateDescriptor<>("handed-over-at", String.class, Long.class));
        round = state.getState(new ValueStateDescriptor<>("round", Long.class));
        lastMovesAt = state.getState(new ValueStateDescriptor<>("last-moves-at", Long.class));
        recipientCountAfterMoves = state.getMapState(
                new MapStateDescriptor<>("recipient-count-after-moves", String.class, Integer.class));
        donorHandedOut = state.getMapState(new MapStateDescriptor<>("donor-handed-out", String.class, Integer.class));
        lastMoves = state.getState(new ValueStateDescriptor<>("last-round-moves", Integer.class));
        handovers = state.getMetricGroup().counter("handoversOrdered");
    }

    /**
     * Runs one round over the active gateways; its handovers go to {@code out}, its summary is returned. While any of
     * them is {@code silent} (its latest report late) no node moves: its count may be of nodes that left it.
     */
    BalanceRound run(List<GatewayView> active, Map<String, Double> scores, Members members, Set<String> listedIds,
                     String rankingName, long now, Set<String> silent, Collector<GatewayOrder> out) throws Exception {
        List<Balancer.Gateway> gateways = new ArrayList<>();
        Map<String, GatewayEndpoints> addresses = new HashMap<>();
        Long movedAt = lastMovesAt.value();
        boolean timedOut = movedAt == null || now >= movedAt + settings.maxSettleMs();
        // Nodes ordered to move that have not arrived yet: a donor's report still counts them.
        int inTransit = 0;
        boolean reported = true;
        for (GatewayView view : active) {
            Integer expected = timedOut ? null : recipientCountAfterMoves.get(view.gatewayId());
            if (expected != null) {
                inTransit += Math.max(0, expected - view.connected());
            }
            reported &= movedAt == null || (view.load() != null && view.load().timestamp() >= movedAt + settings.settleMs());
        }
        int moved = lastMoves.value() == null ? 0 : lastMoves.value();
        boolean settled = timedOut || (reported && inTransit <= Math.max(1, moved / 10));
        for (GatewayView view : active) {
            Integer given = timedOut ? null : donorHandedOut.get(view.gatewayId());
            int connected = view.connected();
            if (given != null && moved > 0) {
                connected = Math.max(0, connected - (int) Math.round((double) inTransit * given / moved));
            }
            gateways.add(new Balancer.Gateway(view.gatewayId(), scores.getOrDefault(view.gatewayId(), 0.0),
                    connected, () -> nodesOf(members, view.gatewayId()), view.draining(),
                    !listedIds.contains(view.gatewayId())));
            addresses.put(view.gatewayId(), view.hello().reach());
        }
        long roundNumber = round.value() == null ? 1 : round.value() + 1;
        round.update(roundNumber);
        Balancer.Plan plan;
        if (!settings.balance()) {
            plan = new Balancer.Plan(Map.of(), List.of(), 0, "balancing-off");
        } else if (!silent.isEmpty()) {
            plan = new Balancer.Plan(Balancer.idealCounts(gateways), List.of(), 0, "gateway-silent");
        } else if (!settled) {
            plan = new Balancer.Plan(Balancer.idealCounts(gateways), List.of(), 0, "waiting-for-reports");
        } else {
            plan = balancer.plan(gateways, mnId -> inCooldown(mnId, now));
        }
        Map<String, Integer> handedOut = new HashMap<>();
        Map<String, Integer> handedIn = new HashMap<>();
        for (Balancer.Move move : plan.moves()) {
            handedOverAt.put(move.mnId(), now);
            out.collect(new GatewayOrder(move.from(), move.mnId(),
                    new GatewayCommand.Handover(move.mnId(), addresses.get(move.to()), roundNumber)));
            handedOut.merge(move.from(), 1, Integer::sum);
            handedIn.merge(move.to(), 1, Integer::sum);
        }
        if (!plan.moves().isEmpty()) {
            remember(gateways, plan.moves().size(), handedOut, handedIn, now);
        }
        List<BalanceRound.Share> shares = new ArrayList<>();
        for (Balancer.Gateway g : gateways) {
            shares.add(new BalanceRound.Share(g.gatewayId(), g.score(), g.connected(),
                    plan.ideal().getOrDefault(g.gatewayId(), 0), handedOut.getOrDefault(g.gatewayId(), 0),
                    handedIn.getOrDefault(g.gatewayId(), 0), g.draining()));
        }
        forgetCooledDown(now);
        return new BalanceRound(roundNumber, now, rankingName, Balancer.nodes(gateways), shares,
                plan.moves().size(), plan.inCooldown(), plan.decision());
    }

    /** What the next rounds wait for: the recipients' counts once the moved nodes arrive, and who gave them. */
    private void remember(List<Balancer.Gateway> gateways, int moves, Map<String, Integer> handedOut,
                          Map<String, Integer> handedIn, long now) throws Exception {
        lastMovesAt.update(now);
        handovers.inc(moves);
        recipientCountAfterMoves.clear();
        donorHandedOut.clear();
        lastMoves.update(moves);
        for (Balancer.Gateway g : gateways) {
            int given = handedOut.getOrDefault(g.gatewayId(), 0);
            if (given > 0) {
                donorHandedOut.put(g.gatewayId(), given);
            }
            int received = handedIn.getOrDefault(g.gatewayId(), 0);
            if (received > 0) {
                recipientCountAfterMoves.put(g.gatewayId(), g.connected() + received);
            }
        }
    }

    void forget(String gatewayId) throws Exception {
        recipientCountAfterMoves.remove(gatewayId);
        donorHandedOut.remove(gatewayId);
    }

    private boolean inCooldown(String mnId, long now) {
        try {
            Long at = handedOverAt.get(mnId);
            return at != null && now - at < settings.handoverCooldownMs();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read handover times", e);
        }
    }

    private void forgetCooledDown(long now) throws Exception {
        Iterator<Map.Entry<String, Long>> it = handedOverAt.iterator();
        while (it.hasNext()) {
            if (now - it.next().getValue() >= settings.handoverCooldownMs()) {
                it.remove();
            }
        }
    }

    /** A donor's nodes, read when the balancer takes some of them. */
    private static List<String> nodesOf(Members members, String gatewayId) {
        try {
            List<String> known = members.of(gatewayId);
            return known == null ? List.of() : known;
        } catch (Exception e) {
            throw new IllegalStateException("the nodes of " + gatewayId + " could not be read from state", e);
        }
    }
}
