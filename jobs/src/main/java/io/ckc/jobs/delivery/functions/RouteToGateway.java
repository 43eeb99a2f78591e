package io.ckc.jobs.delivery.functions;

import io.ckc.jobs.delivery.DeliveryInput;
import io.ckc.jobs.delivery.Outbound;
import io.ckc.jobs.delivery.Route;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Keyed by mobile node: knows which gateway holds the node's session and routes each unicast there.
 *
 * <p>A connect wins when its epoch is at least the current one; a disconnect counts only when it
 * names the current gateway and epoch, so a late disconnect from the old gateway after a handover
 * cannot clobber the new route. A unicast a gateway could not send ({@code ckc.unsent}, after a
 * handover or a broken session) goes to the node's current session if that is a newer one, and is
 * parked otherwise. A unicast for a node with no open session is parked in keyed state
 * (the seed of the MTD buffer) until the node connects, then sent in its original order, or until
 * the park timeout, then dropped and counted. A closed route is forgotten after the retention time.
 */
public final class RouteToGateway extends KeyedProcessFunction<String, DeliveryInput, Outbound> {

    private final long parkTimeoutMs;
    private final long routeRetentionMs;

    private transient ValueState<Route> route;
    private transient ListState<Unicast> parked;
    private transient ValueState<Long> parkDeadline;
    private transient ValueState<Long> forgetRouteAt;
    private transient Counter routed;
    private transient Counter parkedCount;
    private transient Counter expired;
    private transient Counter staleEvents;
    private transient Counter rerouted;

    public RouteToGateway(long parkTimeoutMs, long routeRetentionMs) {
        this.parkTimeoutMs = parkTimeoutMs;
        this.routeRetentionMs = routeRetentionMs;
    }

    @Override
    public void open(OpenContext openContext) {
        route = getRuntimeContext().getState(new ValueStateDescriptor<>("route", Route.class));
        parked = getRuntimeContext().getListState(new ListStateDescriptor<>("parked-unicasts", Unicast.class));
        parkDeadline = getRuntimeContext().getState(new ValueStateDescriptor<>("park-deadline", Long.class));
        forgetRouteAt = getRuntimeContext().getState(new ValueStateDescriptor<>("forget-route-at", Long.class));
        var metrics = getRuntimeContext().getMetricGroup();
        routed = metrics.counter("routed");
        parkedCount = metrics.counter("parkedNoRoute");
        expired = metrics.counter("parkedExpired");
        staleEvents = metrics.counter("staleEvents");
        rerouted = metrics.counter("reroutedUnsent");
    }

    @Override
    public void processElement(DeliveryInput input, Context ctx, Collector<Outbound> out) throws Exception {
        if (input.event() != null) {
            onEvent(input.event(), ctx, out);
        } else if (input.unsent() != null) {
            onUnsent(input.unsent(), ctx, out);
        } else {
            onUnicast(input.unicast(), ctx, out);
        }
    }

    private void onEvent(MnEvent event, Context ctx, Collector<Outbound> out) throws Exception {
        Route current = route.value();
        if (event.type() == MnEvent.Type.CONNECTED) {
            if (current != null && event.epoch() < current.epoch()) {
                staleEvents.inc();
                return;
            }
            route.update(new Route(event.gatewayId(), event.epoch(), true));
            cancelTimer(forgetRouteAt, ctx);
            flushParked(event.gatewayId(), event.epoch(), ctx, out);
        } else {
            if (current == null || !current.connected() || current.epoch() != event.epoch()
                    || !current.gatewayId().equals(event.gatewayId())) {
                staleEvents.inc();
                return;
            }
            route.update(new Route(current.gatewayId(), current.epoch(), false));
            // Why: a node that never comes back must not keep its route in state forever.
            long at = ctx.timerService().currentProcessingTime() + routeRetentionMs;
            forgetRouteAt.update(at);
            ctx.timerService().registerProcessingTimeTimer(at);
        }
    }

    private void onUnicast(Unicast unicast, Context ctx, Collector<Outbound> out) throws Exception {
        Route current = route.value();
        if (current != null && current.connected()) {
            routed.inc();
            out.collect(new Outbound(current.gatewayId(), current.epoch(), unicast));
            return;
        }
        park(unicast, ctx);
    }

    /** Sent again only to a session newer than the one that failed it; otherwise it waits for the next connect. */
    private void onUnsent(UnsentMessage unsent, Context ctx, Collector<Outbound> out) throws Exception {
        Route current = route.value();
        boolean newerSession = current != null && current.connected()
                && (!current.gatewayId().equals(unsent.gatewayId()) || current.epoch() > unsent.epoch());
        if (newerSession) {
            rerouted.inc();
            out.collect(new Outbound(current.gatewayId(), current.epoch(), unsent.unicast()));
            return;
        }
        park(unsent.unicast(), ctx);
    }

    private void park(Unicast unicast, Context ctx) throws Exception {
        parkedCount.inc();
        parked.add(unicast);
        if (parkDeadline.value() == null) {
            // Why: parked messages must not wait forever for a node that is gone.
            long at = ctx.timerService().currentProcessingTime() + parkTimeoutMs;
            parkDeadline.update(at);
            ctx.timerService().registerProcessingTimeTimer(at);
        }
    }

    private void flushParked(String gatewayId, long epoch, Context ctx, Collector<Outbound> out) throws Exception {
        for (Unicast unicast : parked.get()) {
            routed.inc();
            out.collect(new Outbound(gatewayId, epoch, unicast));
        }
        parked.clear();
        cancelTimer(parkDeadline, ctx);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Outbound> out) throws Exception {
        Long deadline = parkDeadline.value();
        if (deadline != null && deadline == timestamp) {
            for (Unicast ignored : parked.get()) {
                expired.inc();
            }
            parked.clear();
            parkDeadline.clear();
        }
        Long forgetAt = forgetRouteAt.value();
        if (forgetAt != null && forgetAt == timestamp) {
            Route current = route.value();
            if (current != null && !current.connected()) {
                route.clear();
            }
            forgetRouteAt.clear();
        }
    }

    private static void cancelTimer(ValueState<Long> timer, Context ctx) throws Exception {
        Long at = timer.value();
        if (at != null) {
            ctx.timerService().deleteProcessingTimeTimer(at);
            timer.clear();
        }
    }
}
