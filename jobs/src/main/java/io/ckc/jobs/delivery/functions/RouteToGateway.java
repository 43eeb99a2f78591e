package io.ckc.jobs.delivery.functions;

import io.ckc.jobs.delivery.DeliveryInput;
import io.ckc.jobs.delivery.MtdSettings;
import io.ckc.jobs.delivery.Outbound;
import io.ckc.jobs.delivery.Route;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
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
import org.apache.flink.util.OutputTag;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Keyed by mobile node: knows which gateway holds the node's session, routes each unicast there,
 * and is the Mobile Temporary Disconnect service (paper sections 4.2 and 6) for the node.
 *
 * <p>A connect wins when its epoch is at least the current one; a disconnect counts only when it
 * names the current gateway and epoch, so a late disconnect from the old gateway after a handover
 * cannot clobber the new route.
 *
 * <p>MTD: a unicast for a node with no open session, or one a gateway could not send
 * ({@code ckc.unsent}) that has no newer session to go to, is buffered in keyed state. On the next
 * connect the buffer is replayed in the messages' original order (by creation time), before any
 * newer message. Each message expires at its deadline ({@link MtdSettings#expiresAt}); one
 * processing-time timer stands at the earliest deadline in the buffer, and the deadline is checked
 * again at replay and on every route, so an expired message is never sent. The buffer is bounded
 * per node; a full buffer drops by the configured policy. Expired and dropped messages are counted,
 * and the sender gets a {@link Receipt} on the {@link #RECEIPTS} side output when it asked for one.
 * A closed route is forgotten after the retention time.
 */
public final class RouteToGateway extends KeyedProcessFunction<String, DeliveryInput, Outbound> {

    public static final OutputTag<Receipt> RECEIPTS = new OutputTag<>("receipts") {
    };

    private final MtdSettings mtd;
    private final long routeRetentionMs;

    private transient ValueState<Route> route;
    private transient ListState<Unicast> buffer;
    private transient ValueState<Integer> buffered;
    private transient ValueState<Long> bufferTimer;
    private transient ValueState<Long> forgetRouteAt;
    private transient Counter routed;
    private transient Counter bufferedCount;
    private transient Counter replayed;
    private transient Counter expired;
    private transient Counter dropped;
    private transient Counter staleEvents;
    private transient Counter rerouted;

    public RouteToGateway(MtdSettings mtd, long routeRetentionMs) {
        this.mtd = mtd;
        this.routeRetentionMs = routeRetentionMs;
    }

    @Override
    public void open(OpenContext openContext) {
        var state = getRuntimeContext();
        route = state.getState(new ValueStateDescriptor<>("route", Route.class));
        buffer = state.getListState(new ListStateDescriptor<>("mtd-buffer", Unicast.class));
        buffered = state.getState(new ValueStateDescriptor<>("mtd-buffered", Integer.class));
        bufferTimer = state.getState(new ValueStateDescriptor<>("mtd-next-deadline", Long.class));
        forgetRouteAt = state.getState(new ValueStateDescriptor<>("forget-route-at", Long.class));
        var metrics = getRuntimeContext().getMetricGroup();
        routed = metrics.counter("routed");
        bufferedCount = metrics.counter("mtdBuffered");
        replayed = metrics.counter("mtdReplayed");
        expired = metrics.counter("mtdExpired");
        dropped = metrics.counter("mtdDropped");
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
            Route connected = new Route(event.gatewayId(), event.epoch(), true);
            route.update(connected);
            cancelTimer(forgetRouteAt, ctx);
            replay(connected, ctx, out);
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
            send(current, unicast, ctx, out);
            return;
        }
        hold(unicast, ctx);
    }

    /** Sent again only to a session newer than the one that failed it; otherwise it waits in the buffer. */
    private void onUnsent(UnsentMessage unsent, Context ctx, Collector<Outbound> out) throws Exception {
        if (unsent.reason() == UnsentMessage.Reason.EXPIRED) {
            expire(unsent.unicast(), ctx, "expired before gateway " + unsent.gatewayId() + " could send it");
            return;
        }
        Route current = route.value();
        boolean newerSession = current != null && current.connected()
                && (!current.gatewayId().equals(unsent.gatewayId()) || current.epoch() > unsent.epoch());
        if (newerSession) {
            rerouted.inc();
            send(current, unsent.unicast(), ctx, out);
            return;
        }
        hold(unsent.unicast(), ctx);
    }

    private void send(Route to, Unicast unicast, Context ctx, Collector<Outbound> out) {
        long deadline = mtd.expiresAt(unicast);
        if (ctx.timerService().currentProcessingTime() >= deadline) {
            expire(unicast, ctx, "TTL passed before it was routed");
            return;
        }
        routed.inc();
        out.collect(new Outbound(to.gatewayId(), to.epoch(), unicast, deadline));
    }

    /** Keeps a message for a node that cannot take it now, within its TTL and the buffer's bound. */
    private void hold(Unicast unicast, Context ctx) throws Exception {
        if (!mtd.enabled()) {
            drop(unicast, ctx, "the node is not connected and the MTD is off");
            return;
        }
        long deadline = mtd.expiresAt(unicast);
        if (ctx.timerService().currentProcessingTime() >= deadline) {
            expire(unicast, ctx, "TTL passed while the node was disconnected");
            return;
        }
        int count = buffered.value() == null ? 0 : buffered.value();
        if (count >= mtd.maxBufferedPerMn()) {
            if (mtd.dropPolicy() == MtdSettings.DropPolicy.NEWEST) {
                drop(unicast, ctx, "buffer full (" + count + " messages)");
                return;
            }
            List<Unicast> kept = inOriginalOrder();
            drop(kept.remove(0), ctx, "buffer full (" + count + " messages): oldest dropped");
            kept.add(unicast);
            buffer.update(kept);
            scheduleEarliestDeadline(kept, ctx);
            return;
        }
        bufferedCount.inc();
        buffer.add(unicast);
        buffered.update(count + 1);
        Long next = bufferTimer.value();
        if (next == null || deadline < next) {
            setBufferTimer(deadline, ctx);
        }
    }

    /** The buffer goes to the new session in original order; anything that expired meanwhile does not. */
    private void replay(Route to, Context ctx, Collector<Outbound> out) throws Exception {
        if (buffered.value() == null) {
            return;
        }
        for (Unicast unicast : inOriginalOrder()) {
            replayed.inc();
            send(to, unicast, ctx, out);
        }
        clearBuffer(ctx);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Outbound> out) throws Exception {
        Long deadline = bufferTimer.value();
        if (deadline != null && deadline == timestamp) {
            bufferTimer.clear();
            List<Unicast> kept = new ArrayList<>();
            for (Unicast unicast : inOriginalOrder()) {
                if (mtd.expiresAt(unicast) <= timestamp) {
                    expire(unicast, ctx, "TTL passed while the node was disconnected");
                } else {
                    kept.add(unicast);
                }
            }
            if (kept.isEmpty()) {
                clearBuffer(ctx);
            } else {
                buffer.update(kept);
                buffered.update(kept.size());
                scheduleEarliestDeadline(kept, ctx);
            }
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

    private List<Unicast> inOriginalOrder() throws Exception {
        List<Unicast> all = new ArrayList<>();
        buffer.get().forEach(all::add);
        // Why: messages a gateway failed to send come back after newer ones were buffered.
        all.sort(Comparator.comparingLong(Unicast::createdAt)); // stable: equal times keep arrival order
        return all;
    }

    private void expire(Unicast unicast, Context ctx, String detail) {
        expired.inc();
        receipt(unicast, Receipt.Outcome.EXPIRED, detail, ctx);
    }

    private void drop(Unicast unicast, Context ctx, String detail) {
        dropped.inc();
        receipt(unicast, Receipt.Outcome.DROPPED, detail, ctx);
    }

    private void receipt(Unicast unicast, Receipt.Outcome outcome, String detail, Context ctx) {
        if (unicast.receipt()) {
            ctx.output(RECEIPTS, Receipt.of(unicast, outcome, null, detail, ctx.timerService().currentProcessingTime()));
        }
    }

    private void scheduleEarliestDeadline(List<Unicast> kept, Context ctx) throws Exception {
        long earliest = Long.MAX_VALUE;
        for (Unicast unicast : kept) {
            earliest = Math.min(earliest, mtd.expiresAt(unicast));
        }
        setBufferTimer(earliest, ctx);
    }

    private void setBufferTimer(long at, Context ctx) throws Exception {
        cancelTimer(bufferTimer, ctx);
        bufferTimer.update(at);
        ctx.timerService().registerProcessingTimeTimer(at);
    }

    private void clearBuffer(Context ctx) throws Exception {
        buffer.clear();
        buffered.clear();
        cancelTimer(bufferTimer, ctx);
    }

    private static void cancelTimer(ValueState<Long> timer, Context ctx) throws Exception {
        Long at = timer.value();
        if (at != null) {
            ctx.timerService().deleteProcessingTimeTimer(at);
            timer.clear();
        }
    }
}
