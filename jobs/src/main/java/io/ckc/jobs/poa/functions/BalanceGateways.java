package io.ckc.jobs.poa.functions;

import io.ckc.jobs.poa.GatewayOrder;
import io.ckc.jobs.poa.GatewayView;
import io.ckc.jobs.poa.PoaSettings;
import io.ckc.protocol.records.BalanceRound;
import io.ckc.protocol.records.GatewayList;
import io.ckc.protocol.records.MnEvent;
import io.ckc.udfs.GatewayRanking;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The global step of the PoA manager (one key, parallelism 1: tens to hundreds of gateways). It
 * keeps the latest view and members of every gateway it knows and, every check interval: writes the
 * gateway list ranked by the configured {@link GatewayRanking} (side output {@link #GATEWAY_LIST};
 * also at once when a gateway's liveness changes; {@link GatewayListing}), reconfigures the ping
 * windows from the network-wide ping rate ({@link PingConfigs}, which also gives a new gateway the
 * current PingConfig as soon as its HelloPoA is seen), and runs a balancing round whose handovers
 * go to the donor gateways' topics and whose summary goes to {@link #ROUNDS} ({@link BalancingRounds}).
 * A gateway that turns inactive has its members told that their sessions there are over
 * ({@link #LOST_SESSIONS}); one the per-gateway step forgot ({@link GatewayView#gone()}) is forgotten here too.
 */
public final class BalanceGateways extends KeyedProcessFunction<String, GatewayView, GatewayOrder> {

    public static final OutputTag<GatewayList> GATEWAY_LIST = new OutputTag<>("gateway-list") {
    };
    public static final OutputTag<BalanceRound> ROUNDS = new OutputTag<>("balance-rounds") {
    };
    /** For each member of a gateway that turned inactive, its session there is over: to ckc.mn.events. */
    public static final OutputTag<MnEvent> LOST_SESSIONS = new OutputTag<>("lost-sessions") {
    };
    /** The one key of this step. */
    public static final String ALL = "all";

    private final PoaSettings settings;

    private transient MapState<String, GatewayView> views;
    private transient GatewayMembers members;
    private transient ValueState<Long> nextCheck;
    private transient ValueState<Long> lastActiveViewAt;
    /** Per gateway, when its latest load report reached this step (processing time). */
    private transient MapState<String, Long> reportHeardAt;
    private transient GatewayListing listing;
    private transient PingConfigs pings;
    private transient BalancingRounds rounds;
    private transient Counter lossesNotDeclared;

    public BalanceGateways(PoaSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext openContext) {
        var state = getRuntimeContext();
        views = state.getMapState(new MapStateDescriptor<>("gateway-views", String.class, GatewayView.class));
        members = new GatewayMembers(state);
        nextCheck = state.getState(new ValueStateDescriptor<>("next-check", Long.class));
        lastActiveViewAt = state.getState(new ValueStateDescriptor<>("last-active-view-at", Long.class));
        reportHeardAt = state.getMapState(new MapStateDescriptor<>("report-heard-at", String.class, Long.class));
        listing = new GatewayListing(PoaSettings.rankingFor(settings.ranking()), state);
        pings = new PingConfigs(settings, state);
        rounds = new BalancingRounds(settings, state);
        lossesNotDeclared = getRuntimeContext().getMetricGroup().counter("gatewayLossesNotDeclared");
    }

    @Override
    public void processElement(GatewayView view, Context ctx, Collector<GatewayOrder> out) throws Exception {
        if (view.gone()) {
            forget(view.gatewayId());
            return;
        }
        GatewayView before = views.get(view.gatewayId());
        views.put(view.gatewayId(), view);
        members.update(view);
        long now = ctx.timerService().currentProcessingTime();
        if (view.load() != null && (before == null || before.load() == null
                || view.load().timestamp() > before.load().timestamp())) {
            reportHeardAt.put(view.gatewayId(), now);
        }
        if (view.active()) {
            lastActiveViewAt.update(now);
        } else if (before != null && before.active()) {
            lostSessions(view, now, ctx);
        }
        pings.onView(view, out);
        boolean livenessChanged = before == null || before.active() != view.active() || before.draining() != view.draining();
        if (livenessChanged) {
            writeGatewayList(ctx, active());
        }
        if (nextCheck.value() == null) {
            scheduleCheck(ctx, ctx.timerService().currentProcessingTime());
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<GatewayOrder> out) throws Exception {
        List<GatewayView> active = active();
        Map<String, Double> scores = writeGatewayList(ctx, active);
        if (settings.pingReconfig()) {
            pings.reconfigure(active, timestamp, out);
        }
        ctx.output(ROUNDS, rounds.run(active, scores, members, listing.listed(), listing.rankingName(), timestamp,
                silent(active, timestamp), out));
        scheduleCheck(ctx, timestamp);
    }

    /**
     * The gateway stopped reporting: each node of its latest ping window hears, through the delivery job, that its
     * session there is over unless it opened after the gateway's last sign of life (on the gateway's own clock, as
     * the sessions' Connected events are), so that what is pending for it waits for its next session instead of
     * going to a gateway that is gone, and a node that never comes back has its route forgotten. Only while other
     * gateways are heard: a silence of all of them says nothing about this one.
     */
    private void lostSessions(GatewayView view, long now, Context ctx) throws Exception {
        List<String> nodes = members.of(view.gatewayId());
        long lastSignOfLife = lastSignOfLife(view);
        if (nodes == null || lastSignOfLife == Long.MIN_VALUE) {
            return;
        }
        Long othersHeardAt = lastActiveViewAt.value();
        long period = view.load() != null ? view.load().periodMs() : settings.reportPeriodMs();
        if (othersHeardAt == null || now - othersHeardAt > period) {
            // Why: when no gateway at all was heard for a report period, the silence is the manager's (Kafka away, a
            // restart), not this gateway's; ending every session on it would stop delivery to nodes that are fine.
            lossesNotDeclared.inc();
            return;
        }
        for (String node : nodes) {
            ctx.output(LOST_SESSIONS, MnEvent.gatewayLost(node, view.gatewayId(), lastSignOfLife));
        }
    }

    /** The gateway's latest report time on its own clock: its last load report or the end of its last ping window. */
    private static long lastSignOfLife(GatewayView view) {
        long last = view.load() != null ? view.load().timestamp() : Long.MIN_VALUE;
        if (view.stats() != null) {
            last = Math.max(last, view.stats().pingSentAtMicros() / 1000 + view.stats().windowMs());
        }
        return last;
    }

    /**
     * The active gateways whose latest load report is more than one and a half of their periods old. Why: a gateway
     * that died still counts as active for the liveness periods, its last report showing the nodes it had; as they
     * moved to the others, a round found it the emptiest and handed nodes over to it, and each such node then spent
     * 17-26 s of connect attempts on a dead gateway before it came back (a gateway killed under load: p99 19 s).
     */
    private Set<String> silent(List<GatewayView> active, long now) throws Exception {
        Set<String> silent = new TreeSet<>();
        for (GatewayView view : active) {
            Long heardAt = reportHeardAt.get(view.gatewayId());
            long period = view.load() != null ? view.load().periodMs() : settings.reportPeriodMs();
            if (heardAt == null || now - heardAt > period * 3 / 2) {
                silent.add(view.gatewayId());
            }
        }
        return silent;
    }

    /** Everything kept of a gateway that is gone: its view, members, ping bookkeeping and round counts. */
    private void forget(String gatewayId) throws Exception {
        views.remove(gatewayId);
        reportHeardAt.remove(gatewayId);
        members.forget(gatewayId);
        pings.forget(gatewayId);
        rounds.forget(gatewayId);
    }

    // Why: the gateway list, ping reconfiguration and balancing run on a fixed beat, not per report.
    private void scheduleCheck(Context ctx, long now) throws Exception {
        long at = now + settings.checkIntervalMs();
        nextCheck.update(at);
        ctx.timerService().registerProcessingTimeTimer(at);
    }

    private Map<String, Double> writeGatewayList(Context ctx, List<GatewayView> active) throws Exception {
        Map<String, Double> scores = listing.rank(active);
        ctx.output(GATEWAY_LIST, listing.write(active, scores, ctx.timerService().currentProcessingTime()));
        return scores;
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
}
