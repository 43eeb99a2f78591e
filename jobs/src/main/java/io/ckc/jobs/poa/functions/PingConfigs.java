package io.ckc.jobs.poa.functions;

import io.ckc.jobs.poa.GatewayOrder;
import io.ckc.jobs.poa.GatewayView;
import io.ckc.jobs.poa.PoaSettings;
import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.protocol.records.GatewayCommand;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;

import java.util.List;

/**
 * The PoA manager's ping settings (paper section 5.4), part of {@link BalanceGateways}' keyed state:
 * the PingConfig every gateway gets when its HelloPoA is seen, and its reconfiguration from the
 * network-wide ping rate.
 */
final class PingConfigs {

    private final PoaSettings settings;
    private final MapState<String, Long> configuredForHello;
    private final ValueState<GatewayCommand.ConfigurePing> current;
    private final ValueState<Long> lastChangeAt;
    private final Counter reconfigurations;

    PingConfigs(PoaSettings settings, RuntimeContext state) {
        this.settings = settings;
        configuredForHello = state.getMapState(
                new MapStateDescriptor<>("ping-config-sent-for-hello", String.class, Long.class));
        current = state.getState(new ValueStateDescriptor<>("ping-config", GatewayCommand.ConfigurePing.class));
        lastChangeAt = state.getState(new ValueStateDescriptor<>("last-ping-change", Long.class));
        reconfigurations = state.getMetricGroup().counter("pingReconfigurations");
    }

    /** A gateway's view: the current PingConfig once per HelloPoA it sends (a restart sends a new one). */
    void onView(GatewayView view, Collector<GatewayOrder> out) throws Exception {
        if (view.hello() != null
                && !Long.valueOf(view.hello().timestamp()).equals(configuredForHello.get(view.gatewayId()))) {
            configuredForHello.put(view.gatewayId(), view.hello().timestamp());
            out.collect(new GatewayOrder(view.gatewayId(), view.gatewayId(), current()));
        }
    }

    void forget(String gatewayId) throws Exception {
        configuredForHello.remove(gatewayId);
    }

    GatewayCommand.ConfigurePing current() throws Exception {
        GatewayCommand.ConfigurePing config = current.value();
        return config != null ? config : new GatewayCommand.ConfigurePing(settings.pingIntervalMs(), settings.pingWindowMs());
    }

    /**
     * From the network-wide ping rate (all active gateways' latest windows), a new window length by
     * the operator's table. Waits until every gateway reported a window of the current length since
     * the last change, so one change is judged before the next.
     */
    void reconfigure(List<GatewayView> active, long now, Collector<GatewayOrder> out) throws Exception {
        GatewayCommand.ConfigurePing config = current();
        Long changedAt = lastChangeAt.value();
        long answered = 0;
        long pinged = 0;
        for (GatewayView view : active) {
            ConnectionStatistics stats = view.stats();
            if (stats == null || stats.windowMs() != config.windowMs()
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
        long window = settings.pingReconfiguration().nextWindowMs(config.windowMs(), config.intervalMs(), pingRate);
        if (window == config.windowMs()) {
            return;
        }
        GatewayCommand.ConfigurePing next = new GatewayCommand.ConfigurePing(config.intervalMs(), window);
        current.update(next);
        lastChangeAt.update(now);
        reconfigurations.inc();
        for (GatewayView view : active) {
            out.collect(new GatewayOrder(view.gatewayId(), view.gatewayId(), next));
        }
    }
}
