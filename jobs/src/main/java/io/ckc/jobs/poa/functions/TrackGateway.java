package io.ckc.jobs.poa.functions;

import io.ckc.jobs.poa.GatewayView;
import io.ckc.jobs.poa.LatencyStatistics;
import io.ckc.jobs.poa.PoaInput;
import io.ckc.jobs.poa.PoaSettings;
import io.ckc.jobs.poa.WindowAssembly;
import io.ckc.protocol.records.ConnectionReport;
import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;
import io.ckc.protocol.records.PoaControl;
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

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Keyed by gateway: keeps its HelloPoA, latest LoadReport and ping-window statistics, assembles the
 * parts of each ConnectionReport into Connection Statistics (side output {@link #STATISTICS}), and
 * decides liveness with a processing-time timer. A gateway is inactive once neither a LoadReport
 * nor a healthy ping window has arrived in the last X report periods: two signals, so one late
 * report does not drop a gateway that is still serving its nodes. Every change goes downstream as a
 * {@link GatewayView}. A gateway inactive for the retention time ({@link PoaSettings#gatewayRetentionMs})
 * is forgotten: its state is cleared and a last view marked gone tells the global step to forget it too.
 */
public final class TrackGateway extends KeyedProcessFunction<String, PoaInput, GatewayView> {

    public static final OutputTag<ConnectionStatistics> STATISTICS = new OutputTag<>("connection-statistics") {
    };

    private final PoaSettings settings;

    private transient ValueState<HelloPoA> hello;
    private transient ValueState<LoadReport> lastLoad;
    private transient ValueState<Long> lastLoadAt;
    private transient ValueState<ConnectionStatistics> lastStats;
    private transient ValueState<Long> lastHealthyWindowAt;
    private transient ValueState<WindowAssembly> window;
    private transient MapState<Integer, List<String>> windowMembers;
    private transient ValueState<Boolean> draining;
    private transient ValueState<Boolean> active;
    private transient ValueState<Long> livenessDeadline;
    private transient ValueState<Long> forgetAt;
    private transient Counter staleReports;
    private transient Counter incompleteWindows;
    private transient Counter inactiveGateways;
    private transient Counter forgottenGateways;
    /** When this instance first saw an element or a timer (processing time); Long.MIN_VALUE before. */
    private transient long observingSince;

    public TrackGateway(PoaSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext openContext) {
        var state = getRuntimeContext();
        hello = state.getState(new ValueStateDescriptor<>("hello", HelloPoA.class));
        lastLoad = state.getState(new ValueStateDescriptor<>("last-load-report", LoadReport.class));
        lastLoadAt = state.getState(new ValueStateDescriptor<>("last-load-report-arrival", Long.class));
        lastStats = state.getState(new ValueStateDescriptor<>("last-connection-statistics", ConnectionStatistics.class));
        lastHealthyWindowAt = state.getState(new ValueStateDescriptor<>("last-healthy-window-arrival", Long.class));
        window = state.getState(new ValueStateDescriptor<>("ping-window-parts", WindowAssembly.class));
        windowMembers = state.getMapState(new MapStateDescriptor<>("ping-window-members",
                TypeInformation.of(Integer.class), TypeInformation.of(new TypeHint<List<String>>() { })));
        draining = state.getState(new ValueStateDescriptor<>("draining", Boolean.class));
        active = state.getState(new ValueStateDescriptor<>("active", Boolean.class));
        livenessDeadline = state.getState(new ValueStateDescriptor<>("liveness-deadline", Long.class));
        forgetAt = state.getState(new ValueStateDescriptor<>("forget-at", Long.class));
        var metrics = getRuntimeContext().getMetricGroup();
        staleReports = metrics.counter("staleReports");
        incompleteWindows = metrics.counter("incompletePingWindows");
        inactiveGateways = metrics.counter("gatewaysTurnedInactive");
        forgottenGateways = metrics.counter("gatewaysForgotten");
        observingSince = Long.MIN_VALUE;
    }

    /**
     * Why: after a restart from a checkpoint (a TaskManager lost, a rescale) the liveness timers that fell due while
     * the job was down fire at once, before the reports written meanwhile are read. A silence this instance did not
     * observe for the whole allowed time says nothing about the gateway, and declaring it lost would end every
     * session on it; such a timer is set again for the allowed time after this instance began observing.
     */
    private long observing(long now) {
        if (observingSince == Long.MIN_VALUE) {
            observingSince = now;
        }
        return observingSince;
    }

    @Override
    public void processElement(PoaInput input, Context ctx, Collector<GatewayView> out) throws Exception {
        long now = ctx.timerService().currentProcessingTime();
        observing(now);
        if (input.hello() != null) {
            hello.update(input.hello());
        } else if (input.load() != null) {
            if (isStale(input.load().timestamp(), now)) {
                staleReports.inc();
                return;
            }
            lastLoad.update(input.load());
            lastLoadAt.update(now);
            becomeAlive(ctx, now);
        } else if (input.connections() != null) {
            List<List<String>> members = onConnectionReport(input.connections(), ctx, now);
            if (members == null) {
                return; // the window is not complete yet
            }
            if (members.isEmpty()) {
                out.collect(view(ctx.getCurrentKey(), null, 0, 0)); // a window that counted its nodes, not listed them
                return;
            }
            // Why: a view per part, not one of every node: a million nodes in one record are 40 MB for the network
            // stack to spill to disk and read back byte by byte, every window.
            for (int part = 0; part < members.size(); part++) {
                out.collect(view(ctx.getCurrentKey(), members.get(part), part, members.size()));
            }
            return;
        } else {
            PoaControl control = input.control();
            draining.update(control.drain());
        }
        out.collect(view(ctx.getCurrentKey(), null, 0, 0));
    }

    /**
     * Returns the window's members, by the parts that came, once it is complete (none if it did not list them), else
     * null.
     */
    private List<List<String>> onConnectionReport(ConnectionReport part, Context ctx, long now) throws Exception {
        if (isStale(part.pingSentAtMicros() / 1000 + part.windowMs(), now)) {
            staleReports.inc();
            return null;
        }
        WindowAssembly assembly = window.value();
        if (assembly != null && part.pingSentAtMicros() < assembly.pingSentAtMicros) {
            staleReports.inc(); // a part of a window already closed
            return null;
        }
        List<List<String>> finishedMembers = null;
        if (assembly != null && part.pingSentAtMicros() > assembly.pingSentAtMicros) {
            incompleteWindows.inc(); // a part of the previous window never came: report what we have
            finishedMembers = finish(assembly, false, ctx, now);
            assembly = null;
        }
        if (assembly == null) {
            assembly = new WindowAssembly(part.pingSentAtMicros(), part.windowMs(), part.parts());
        }
        if (assembly.partsSeen.add(part.part())) {
            long windowMicros = part.windowMs() * 1000;
            for (Map.Entry<String, Long> pong : part.pongArrivalMicros().entrySet()) {
                long latency = pong.getValue() - part.pingSentAtMicros();
                if (latency >= 0 && latency <= windowMicros) {
                    assembly.latenciesMicros.add(latency);
                }
            }
            // Why: a part's nodes are written once, on their own; kept in the assembly they would be read and written
            // again with every later part, quadratic in the parts (a million nodes are 500 parts of 2,000).
            if (part.listed()) {
                windowMembers.put(part.part(), part.connected());
            }
            assembly.connected += part.connectedCount();
            assembly.pinged += part.pinged();
        }
        if (assembly.complete()) {
            window.clear();
            return finish(assembly, true, ctx, now);
        }
        window.update(assembly);
        return finishedMembers;
    }

    private List<List<String>> finish(WindowAssembly assembly, boolean complete, Context ctx, long now)
            throws Exception {
        List<List<String>> members = new ArrayList<>();
        for (int part = 0; part < assembly.parts; part++) { // none stored when the window counted its nodes
            List<String> nodes = windowMembers.get(part);
            if (nodes != null) {
                members.add(nodes);
            }
        }
        windowMembers.clear();
        ConnectionStatistics stats = LatencyStatistics.of(ctx.getCurrentKey(), assembly.pingSentAtMicros,
                assembly.windowMs, assembly.latencies(), assembly.connected, assembly.pinged, complete);
        ctx.output(STATISTICS, stats);
        lastStats.update(stats);
        if (stats.pingRate() == null || stats.pingRate() >= settings.healthyPingRate()) {
            lastHealthyWindowAt.update(now);
            becomeAlive(ctx, now);
        }
        return members;
    }

    /** A sign of life: the gateway is active, and stays so until X periods pass without another. */
    private void becomeAlive(Context ctx, long now) throws Exception {
        active.update(true);
        Long forgetting = forgetAt.value();
        if (forgetting != null) {
            ctx.timerService().deleteProcessingTimeTimer(forgetting);
            forgetAt.clear();
        }
        Long previous = livenessDeadline.value();
        if (previous != null) {
            ctx.timerService().deleteProcessingTimeTimer(previous);
        }
        // Why: a gateway that stops reporting must leave the gateway list after X of its periods.
        long deadline = now + silenceAllowedMs();
        livenessDeadline.update(deadline);
        ctx.timerService().registerProcessingTimeTimer(deadline);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<GatewayView> out) throws Exception {
        Long forgetting = forgetAt.value();
        if (forgetting != null && forgetting == timestamp) {
            forget(ctx, out);
            return;
        }
        Long deadline = livenessDeadline.value();
        if (deadline == null || deadline != timestamp) {
            return;
        }
        long now = ctx.timerService().currentProcessingTime(); // past the timer's time when it fell due while down
        long observedFrom = observing(now);
        if (now - observedFrom < silenceAllowedMs()) {
            long later = observedFrom + silenceAllowedMs();
            livenessDeadline.update(later);
            ctx.timerService().registerProcessingTimeTimer(later);
            return;
        }
        livenessDeadline.clear();
        active.update(false);
        inactiveGateways.inc();
        window.clear(); // a half-assembled window of a silent gateway will never complete
        windowMembers.clear();
        out.collect(view(ctx.getCurrentKey(), null, 0, 0));
        // Why: gateways come and go (restarts under new ids, scale-in); what is gone must not stay in state.
        long at = timestamp + settings.gatewayRetentionMs();
        forgetAt.update(at);
        ctx.timerService().registerProcessingTimeTimer(at);
    }

    private void forget(OnTimerContext ctx, Collector<GatewayView> out) {
        hello.clear();
        lastLoad.clear();
        lastLoadAt.clear();
        lastStats.clear();
        lastHealthyWindowAt.clear();
        window.clear();
        windowMembers.clear();
        draining.clear();
        active.clear();
        livenessDeadline.clear();
        forgetAt.clear();
        forgottenGateways.inc();
        out.collect(GatewayView.gone(ctx.getCurrentKey()));
    }

    private boolean isStale(long reportTimeMs, long now) throws IOException {
        return reportTimeMs < now - silenceAllowedMs();
    }

    private long silenceAllowedMs() throws IOException {
        LoadReport load = lastLoad.value();
        long period = load != null ? load.periodMs() : settings.reportPeriodMs();
        return settings.livenessPeriods() * period;
    }

    private GatewayView view(String gatewayId, List<String> members, int part, int parts) throws IOException {
        return new GatewayView(gatewayId, Boolean.TRUE.equals(active.value()), Boolean.TRUE.equals(draining.value()),
                hello.value(), lastLoad.value(), lastStats.value(), members, part, parts, false);
    }
}
