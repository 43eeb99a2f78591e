package io.ckc.jobs.poa.functions;

import io.ckc.jobs.poa.Balancer;
import io.ckc.jobs.poa.GatewayOrder;
import io.ckc.jobs.poa.GatewayView;
import io.ckc.jobs.poa.PoaSettings;
import io.ckc.protocol.records.BalanceRound;
import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.records.GatewayList;
import io.ckc.protocol.records.LoadReport;
import io.ckc.udfs.GatewayRanking;
import io.ckc.udfs.GatewaySnapshot;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The global step of the PoA manager (one key, parallelism 1: tens to hundreds of gateways). It
 * keeps the latest view of every gateway and, every check interval: ranks the active gateways with
 * the configured {@link GatewayRanking}, writes the gateway list sorted by score (side output
 * {@link #GATEWAY_LIST}; also at once when a gateway's liveness changes), reconfigures the ping
 * windows from the network-wide ping rate, and runs a balancing round ({@link Balancer}) whose
 * handovers go to the donor gateways' topics and whose summary goes to {@link #ROUNDS}. A new
 * gateway gets the current PingConfig as soon as its HelloPoA is seen.
 */
public final class BalanceGateways extends KeyedProcessFunction<String, GatewayView, GatewayOrder> {

    public static final OutputTag<GatewayList> GATEWAY_LIST = new OutputTag<>("gateway-list") {
    };
    public static final OutputTag<BalanceRound> ROUNDS = new OutputTag<>("balance-rounds") {
    };
    /** The one key of this step. */
    public static final String ALL = "all";

    private final PoaSettings settings;

    private transient GatewayRanking ranking;
    private transient Balancer balancer;
    private transient MapState<String, GatewayView> views;
    private transient MapState<String, List<String>> members;
    private transient MapState<String, Long> handedOverAt;
    private transient MapState<String, Long> pingConfiguredForHello;
    private transient ValueState<GatewayCommand.ConfigurePing> pingConfig;
    private transient ValueState<Long> lastPingChangeAt;
    private transient ValueState<List<String>> listed;
    private transient ValueState<Long> listVersion;
    private transient ValueState<Long> round;
    private transient ValueState<Long> lastMovesAt;
    private transient MapState<String, Integer> recipientCountAfterMoves;
    private transient MapState<String, Integer> donorHandedOut;
    private transient ValueState<Integer> lastMoves;
    private transient ValueState<Long> nextCheck;
    private transient Counter handovers;
    private transient Counter pingReconfigurations;

    public BalanceGateways(PoaSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext openContext) {
        ranking = PoaSettings.rankingFor(settings.ranking());
        balancer = new Balancer(settings.balancer());
        var state = getRuntimeContext();
        views = state.getMapState(new MapStateDescriptor<>("gateway-views", String.class, GatewayView.class));
        members = state.getMapState(new MapStateDescriptor<>("gateway-members", TypeInformation.of(String.class),
                TypeInformation.of(new TypeHint<List<String>>() { })));
        handedOverAt = state.getMapState(new MapStateDescriptor<>("handed-over-at", String.class, Long.class));
        pingConfiguredForHello = state.getMapState(
                new MapStateDescriptor<>("ping-config-sent-for-hello", String.class, Long.class));
        pingConfig = state.getState(new ValueStateDescriptor<>("ping-config", GatewayCommand.ConfigurePing.class));
        lastPingChangeAt = state.getState(new ValueStateDescriptor<>("last-ping-change", Long.class));
        listed = state.getState(new ValueStateDescriptor<>("listed-gateways",
                TypeInformation.of(new TypeHint<List<String>>() { })));
        listVersion = state.getState(new ValueStateDescriptor<>("gateway-list-version", Long.class));
        round = state.getState(new ValueStateDescriptor<>("round", Long.class));
        lastMovesAt = state.getState(new ValueStateDescriptor<>("last-moves-at", Long.class));
        recipientCountAfterMoves = state.getMapState(
                new MapStateDescriptor<>("recipient-count-after-moves", String.class, Integer.class));
        donorHandedOut = state.getMapState(new MapStateDescriptor<>("donor-handed-out", String.class, Integer.class));
        lastMoves = state.getState(new ValueStateDescriptor<>("last-round-moves", Integer.class));
        nextCheck = state.getState(new ValueStateDescriptor<>("next-check", Long.class));
        var metrics = getRuntimeContext().getMetricGroup();
        handovers = metrics.counter("handoversOrdered");
        pingReconfigurations = metrics.counter("pingReconfigurations");
    }

    @Override
    public void processElement(GatewayView view, Context ctx, Collector<GatewayOrder> out) throws Exception {
        GatewayView before = views.get(view.gatewayId());
        views.put(view.gatewayId(), view);
        if (view.members() != null) {
            members.put(view.gatewayId(), view.members());
        }
        if (view.hello() != null && !Long.valueOf(view.hello().timestamp()).equals(pingConfiguredForHello.get(view.gatewayId()))) {
            pingConfiguredForHello.put(view.gatewayId(), view.hello().timestamp());
            out.collect(new GatewayOrder(view.gatewayId(), view.gatewayId(), currentPingConfig()));
        }
        boolean livenessChanged = before == null || before.active() != view.active() || before.draining() != view.draining();
        if (livenessChanged) {
            List<GatewayView> active = active();
            writeGatewayList(ctx, active, rank(active));
        }
        if (nextCheck.value() == null) {
            scheduleCheck(ctx, ctx.timerService().currentProcessingTime());
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<GatewayOrder> out) throws Exception {
        long now = timestamp;
        List<GatewayView> active = active();
        Map<String, Double> scores = rank(active);
        writeGatewayList(ctx, active, scores);
        if (settings.pingReconfig()) {
            reconfigurePing(active, now, out);
        }
        runRound(active, scores, now, ctx, out);
        forgetCooledDown(now);
        scheduleCheck(ctx, now);
    }

    // Why: the gateway list, ping reconfiguration and balancing run on a fixed beat, not per report.
    private void scheduleCheck(Context ctx, long now) throws Exception {
        long at = now + settings.checkIntervalMs();
        nextCheck.update(at);
        ctx.timerService().registerProcessingTimeTimer(at);
    }

    private List<GatewayView> active() throws Exception {
        List<GatewayView> active = new ArrayList<>();
        for (GatewayView view : views.values()) {
            if (view.active() && view.hello() != null) {
                active.add(view);
            }
        }
        active.sort(Comparator.comparing(GatewayView::gatewayId));
        return active;
    }

    /** Scores of the active gateways by the configured ranking; anything not finite or negative counts as 0. */
    private Map<String, Double> rank(List<GatewayView> active) {
        Map<String, Double> scores = new HashMap<>();
        if (active.isEmpty()) {
            return scores;
        }
        Map<String, Double> ranked = ranking.rank(active.stream().map(BalanceGateways::snapshot).toList());
        for (GatewayView view : active) {
            Double score = ranked.get(view.gatewayId());
            scores.put(view.gatewayId(), score == null || !Double.isFinite(score) || score < 0 ? 0 : score);
        }
        return scores;
    }

    private static GatewaySnapshot snapshot(GatewayView view) {
        LoadReport load = view.load();
        ConnectionStatistics stats = view.stats();
        return new GatewaySnapshot(view.gatewayId(), view.connected(),
                load == null ? 0 : load.poolSize(), load == null ? 0 : load.poolUtilisation(),
                load == null ? 0 : load.cpuLoad(), load == null ? 0 : load.processCpuLoad(),
                load == null ? 0 : load.memoryTotalBytes(), load == null ? 1 : load.memoryFreeShare(),
                load == null ? 0 : load.jvmMemoryTotalBytes(), load == null ? 1 : load.jvmMemoryFreeShare(),
                stats == null ? null : stats.pingRate(), stats == null ? null : stats.meanMs(),
                stats == null ? null : stats.medianMs(), stats == null ? null : stats.maxMs());
    }

    /** Active, not draining gateways, best score first, ties to the one with fewer nodes. */
    private void writeGatewayList(Context ctx, List<GatewayView> active, Map<String, Double> scores) throws Exception {
        List<GatewayList.Entry> entries = new ArrayList<>();
        for (GatewayView view : active) {
            if (!view.draining()) {
                entries.add(new GatewayList.Entry(view.gatewayId(), view.hello().endpoints(),
                        scores.getOrDefault(view.gatewayId(), 0.0), view.connected()));
            }
        }
        entries.sort(Comparator.comparing((GatewayList.Entry e) -> -e.score())
                .thenComparing(GatewayList.Entry::connectedMns).thenComparing(GatewayList.Entry::gatewayId));
        long version = increment(listVersion);
        ctx.output(GATEWAY_LIST, new GatewayList(version, ctx.timerService().currentProcessingTime(), ranking.name(), entries));
        listed.update(entries.stream().map(GatewayList.Entry::gatewayId).toList());
    }

    private static long increment(ValueState<Long> counter) throws Exception {
        long next = counter.value() == null ? 1 : counter.value() + 1;
        counter.update(next);
        return next;
    }

    private GatewayCommand.ConfigurePing currentPingConfig() throws Exception {
        GatewayCommand.ConfigurePing current = pingConfig.value();
        return current != null ? current : new GatewayCommand.ConfigurePing(settings.pingIntervalMs(), settings.pingWindowMs());
    }

    /**
     * Paper section 5.4: from the network-wide ping rate (all active gateways' latest windows), a
     * new window length by the operator's table. Waits until every gateway reported a window of the
     * current length since the last change, so one change is judged before the next.
     */
    private void reconfigurePing(List<GatewayView> active, long now, Collector<GatewayOrder> out) throws Exception {
        GatewayCommand.ConfigurePing current = currentPingConfig();
        Long changedAt = lastPingChangeAt.value();
        long answered = 0;
        long pinged = 0;
        for (GatewayView view : active) {
            ConnectionStatistics stats = view.stats();
            if (stats == null || stats.windowMs() != current.windowMs()
                    || (changedAt != null && stats.pingSentAtMicros() / 1000 < changedAt)) {
                return;
            }
            answered += stats.answered();
            pinged += stats.pinged();
        }
        if (pinged == 0) {
            return;
        }
        double pingRate = (double) answered / pinged;
        long window = settings.pingReconfiguration().nextWindowMs(current.windowMs(), current.intervalMs(), pingRate);
        if (window == current.windowMs()) {
            return;
        }
        GatewayCommand.ConfigurePing next = new GatewayCommand.ConfigurePing(current.intervalMs(), window);
        pingConfig.update(next);
        lastPingChangeAt.update(now);
        pingReconfigurations.inc();
        for (GatewayView view : active) {
            out.collect(new GatewayOrder(view.gatewayId(), view.gatewayId(), next));
        }
    }

    private void runRound(List<GatewayView> active, Map<String, Double> scores, long now, OnTimerContext ctx,
                          Collector<GatewayOrder> out) throws Exception {
        Set<String> listedIds = new HashSet<>(listed.value() == null ? List.of() : listed.value());
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
            List<String> known = members.get(view.gatewayId());
            Integer given = timedOut ? null : donorHandedOut.get(view.gatewayId());
            int connected = view.connected();
            if (given != null && moved > 0) {
                connected = Math.max(0, connected - (int) Math.round((double) inTransit * given / moved));
            }
            gateways.add(new Balancer.Gateway(view.gatewayId(), scores.getOrDefault(view.gatewayId(), 0.0),
                    connected, known == null ? List.of() : known, view.draining(),
                    !listedIds.contains(view.gatewayId())));
            addresses.put(view.gatewayId(), view.hello().reach());
        }
        long roundNumber = increment(round);
        Balancer.Plan plan;
        if (!settings.balance()) {
            plan = new Balancer.Plan(Map.of(), List.of(), 0, "balancing-off");
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
            lastMovesAt.update(now);
            handovers.inc(plan.moves().size());
            recipientCountAfterMoves.clear();
            donorHandedOut.clear();
            lastMoves.update(plan.moves().size());
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
        List<BalanceRound.Share> shares = new ArrayList<>();
        for (Balancer.Gateway g : gateways) {
            shares.add(new BalanceRound.Share(g.gatewayId(), g.score(), g.connected(),
                    plan.ideal().getOrDefault(g.gatewayId(), 0), handedOut.getOrDefault(g.gatewayId(), 0),
                    handedIn.getOrDefault(g.gatewayId(), 0), g.draining()));
        }
        ctx.output(ROUNDS, new BalanceRound(roundNumber, now, ranking.name(), Balancer.nodes(gateways), shares,
                plan.moves().size(), plan.inCooldown(), plan.decision()));
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
}
