package io.ckc.jobs.delivery.functions;

import io.ckc.jobs.delivery.Backlog;
import io.ckc.jobs.delivery.DeliveryInput;
import io.ckc.jobs.delivery.MtdSettings;
import io.ckc.jobs.delivery.Outbound;
import io.ckc.jobs.delivery.PendingMessage;
import io.ckc.jobs.delivery.Route;
import io.ckc.jobs.state.WriteBackState;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Keyed by mobile node: knows which gateway holds the node's session, routes each unicast there, and
 * holds every unicast until the node acknowledges it, so that no crash of a gateway loses one.
 *
 * <p>A connect wins when its epoch is at least the current one; a disconnect counts only when it
 * names the current gateway and epoch, so a late disconnect from the old gateway after a handover
 * cannot clobber the new route. A gateway the PoA manager declared lost ({@link MnEvent.Type#GATEWAY_LOST})
 * marks the node's session there if it opened before the gateway's last sign of life: messages still go
 * there (a declaration can be wrong: a gateway cut off from Kafka for a while still serves its nodes, and
 * one that is gone leaves them in flight, for the node's next session), and the route is forgotten after
 * the retention unless a DELIVERED receipt from that gateway shows it lives or the node connects again.
 *
 * <p>Pending messages: each unicast stays in keyed state from the moment it arrives until its
 * DELIVERED receipt comes back from the gateway ({@code ckc.delivered}), whether it is in flight on
 * a session or waiting for the node to connect (the Mobile Temporary Disconnect service, paper
 * sections 4.2 and 6). When the node opens a new session, anywhere, everything pending that was
 * not sent on that session is sent there, in the messages' original order (creation time, then
 * arrival), before any newer message: the in flight ones of a gateway that died go with it. Nodes
 * drop the duplicates this makes by message id. A message a gateway could not send
 * ({@code ckc.unsent}) waits for a session newer than the one that failed it.
 *
 * <p>Each message expires at its deadline ({@link MtdSettings#expiresAt}), one in flight
 * {@link #ACK_GRACE_MS} later so that an acknowledgement on its way still counts (its gateway never sends it
 * past the deadline, and says so on {@code ckc.unsent}, which expires it at once); one
 * processing-time timer stands at or before the earliest expiry, and the deadline is checked again
 * at every send, so an expired message is never sent. After a restore the job cannot tell what it did between its
 * checkpoint and its failure (a message it sent then, and whose receipt it has not read again yet, may have reached
 * its node): for {@link #ACK_GRACE_MS} nothing expires without its node being asked, and a message that arrives past
 * its deadline then goes to a connected node as that question. The pending set is bounded per node
 * ({@link MtdSettings#maxBufferedPerMn}); a full set drops by the configured policy. Expired and
 * dropped messages are counted, and the sender gets a {@link Receipt} on the {@link #RECEIPTS} side
 * output when it asked for one, as it does for DELIVERED. With the MTD off nothing waits: a message
 * for a node without a session, or one its session could not take, is dropped. A closed route is
 * forgotten after the retention time.
 *
 * <p>Its state is held on the heap between checkpoints ({@link WriteBackState}): a message acknowledged within the
 * checkpoint interval it was sent in, as nearly all are, costs the state backend nothing. Run it in a
 * {@link io.ckc.jobs.state.WriteBackOperator}.
 */
public final class RouteToGateway extends KeyedProcessFunction<String, DeliveryInput, Outbound>
        implements CheckpointedFunction, WriteBackState.Owner {

    public static final OutputTag<Receipt> RECEIPTS = new OutputTag<>("receipts") {
    };

    /**
     * How long past its deadline a message in flight waits for its gateway's word (DELIVERED, or unsent as
     * EXPIRED: a gateway never sends a message's content after its deadline) before it counts as expired: long
     * enough for a receipt held up by a broker restart or this job's own recovery, whose due timers fire before it
     * reads what waited. A node that connects again meanwhile is asked.
     */
    public static final long ACK_GRACE_MS = 60_000;

    private static final Comparator<PendingMessage> ORIGINAL_ORDER =
            Comparator.<PendingMessage>comparingLong(p -> p.unicast().createdAt()).thenComparingLong(PendingMessage::seq);

    private final MtdSettings mtd;
    private final long routeRetentionMs;

    private transient WriteBackState writeBack;
    private transient ValueState<Route> route;
    private transient MapState<String, PendingMessage> pending;
    private transient ValueState<Backlog> backlog;
    private transient ValueState<Long> forgetRouteAt;
    private transient Counter routed;
    private transient Counter acknowledged;
    private transient Counter unmatchedAcknowledgements;
    private transient Counter bufferedCount;
    private transient Counter replayed;
    private transient Counter resent;
    private transient Counter expired;
    private transient Counter dropped;
    private transient Counter staleEvents;
    private transient Counter rerouted;
    private transient Counter gatewayLost;
    private transient Counter unsentOfSettled;
    private transient boolean restored;
    /** Processing time until which, after a restore, no message expires without its node being asked; 0 if none. */
    private transient long recoveryEndsAt;

    public RouteToGateway(MtdSettings mtd, long routeRetentionMs) {
        this.mtd = mtd;
        this.routeRetentionMs = routeRetentionMs;
    }

    @Override
    public void open(OpenContext openContext) {
        var state = getRuntimeContext();
        writeBack = new WriteBackState();
        route = writeBack.value(state.getState(new ValueStateDescriptor<>("route", Route.class)));
        pending = writeBack.map(state.getMapState(
                new MapStateDescriptor<>("pending", String.class, PendingMessage.class)));
        backlog = writeBack.value(state.getState(new ValueStateDescriptor<>("backlog", Backlog.class)));
        forgetRouteAt = writeBack.value(state.getState(new ValueStateDescriptor<>("forget-route-at", Long.class)));
        var metrics = getRuntimeContext().getMetricGroup();
        routed = metrics.counter("routed");
        acknowledged = metrics.counter("acknowledged");
        unmatchedAcknowledgements = metrics.counter("unmatchedAcknowledgements");
        bufferedCount = metrics.counter("mtdBuffered");
        replayed = metrics.counter("mtdReplayed");
        resent = metrics.counter("inFlightResent");
        expired = metrics.counter("mtdExpired");
        dropped = metrics.counter("mtdDropped");
        staleEvents = metrics.counter("staleEvents");
        rerouted = metrics.counter("reroutedUnsent");
        gatewayLost = metrics.counter("sessionsOfLostGateways");
        unsentOfSettled = metrics.counter("unsentOfSettled");
    }

    @Override
    public WriteBackState writeBack() {
        return writeBack;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {
        restored = context.isRestored();
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        // All state is keyed and kept by the backend.
    }

    @Override
    public void processElement(DeliveryInput input, Context ctx, Collector<Outbound> out) throws Exception {
        startRecoveryWindow(ctx);
        if (input.event() != null) {
            onEvent(input.event(), ctx, out);
        } else if (input.delivered() != null) {
            onDelivered(input.delivered(), ctx);
        } else if (input.unsent() != null) {
            onUnsent(input.unsent(), ctx, out);
        } else {
            onUnicast(input.unicast(), ctx, out);
        }
    }

    private void onEvent(MnEvent event, Context ctx, Collector<Outbound> out) throws Exception {
        Route current = route.value();
        switch (event.type()) {
            case CONNECTED -> {
                if (current != null && event.epoch() < current.epoch()) {
                    staleEvents.inc();
                    return;
                }
                Route connected = new Route(event.gatewayId(), event.epoch(), true, event.timestamp());
                route.update(connected);
                cancelForgetTimer(ctx);
                sendPending(connected, ctx, out);
            }
            case DISCONNECTED -> {
                if (current == null || !current.connected() || current.epoch() != event.epoch()
                        || !current.gatewayId().equals(event.gatewayId())) {
                    staleEvents.inc();
                    return;
                }
                close(current, ctx);
            }
            case GATEWAY_LOST -> {
                if (current == null || !current.connected() || !current.gatewayId().equals(event.gatewayId())
                        || current.openedAt() > event.timestamp() || current.declaredLost()) {
                    staleEvents.inc(); // moved on, or a session the gateway opened after its declared end
                    return;
                }
                gatewayLost.inc();
                route.update(current.lost(true));
                forgetLater(ctx);
            }
        }
    }

    /**
     * The node's session is over: newer messages wait for its next one, where everything pending goes, and a node
     * that never comes back does not keep its route in state forever.
     */
    private void close(Route current, Context ctx) throws Exception {
        route.update(current.closed());
        forgetLater(ctx);
    }

    /** The route is forgotten after the retention unless the node connects again (or its lost gateway lives). */
    private void forgetLater(Context ctx) throws Exception {
        cancelForgetTimer(ctx);
        long at = ctx.timerService().currentProcessingTime() + routeRetentionMs;
        forgetRouteAt.update(at);
        ctx.timerService().registerProcessingTimeTimer(at);
    }

    private void onUnicast(Unicast unicast, Context ctx, Collector<Outbound> out) throws Exception {
        Route current = route.value();
        admit(unicast, current != null && current.connected() ? current : null, ctx, out);
    }

    /**
     * Takes a message into the pending set: sent on session {@code to} at once, or waiting when that is null. Past its
     * deadline it expires, unless the job is recovering: then it may be one that reached its node before the failure,
     * and the node is asked (at once if connected; the gateway sends only the question).
     */
    private void admit(Unicast unicast, Route to, Context ctx, Collector<Outbound> out) throws Exception {
        long deadline = mtd.expiresAt(unicast);
        if (ctx.timerService().currentProcessingTime() >= deadline && !recovering(ctx)) {
            expire(unicast, ctx, "TTL passed before it was routed");
            return;
        }
        if (to == null && !mtd.enabled()) {
            drop(unicast, ctx, "the node is not connected and the MTD is off");
            return;
        }
        Backlog book = makeRoom(unicast, ctx);
        if (book == null) {
            return;
        }
        PendingMessage message = PendingMessage.waiting(book.nextSeq(), unicast);
        if (to != null) {
            message = message.sentTo(to);
            routed.inc();
            out.collect(new Outbound(to.gatewayId(), to.epoch(), unicast, deadline));
        } else {
            bufferedCount.inc();
        }
        pending.put(unicast.messageId(), message);
        backlog.update(expireNoLaterThan(expiryOf(message), book.added(), ctx));
    }

    /**
     * The node acknowledged it (DELIVERED), or its gateway can never deliver it (DROPPED: larger than the node takes):
     * it is no longer pending, and its sender hears if it asked.
     */
    private void onDelivered(Receipt receipt, Context ctx) throws Exception {
        PendingMessage message = pending.get(receipt.messageId());
        if (message == null) {
            unmatchedAcknowledgements.inc(); // a duplicate's acknowledgement, or one after its expiry
            return;
        }
        (receipt.outcome() == Receipt.Outcome.DROPPED ? dropped : acknowledged).inc();
        pending.remove(receipt.messageId());
        backlog.update(backlog().removed());
        Route current = route.value();
        if (current != null && current.declaredLost() && current.gatewayId().equals(receipt.gatewayId())) {
            route.update(current.lost(false)); // declared lost, it delivers: the declaration was wrong
            cancelForgetTimer(ctx);
        }
        if (message.unicast().receipt()) {
            ctx.output(RECEIPTS, receipt);
        }
    }

    /**
     * Sent again only to a session newer than the one that failed it; otherwise it waits for the next
     * one. A message sent on another session since then is already on its way again.
     */
    private void onUnsent(UnsentMessage unsent, Context ctx, Collector<Outbound> out) throws Exception {
        Unicast unicast = unsent.unicast();
        PendingMessage message = pending.get(unicast.messageId());
        if (message != null && message.inFlight() && !message.sentOn(unsent.gatewayId(), unsent.epoch())) {
            return;
        }
        Route current = route.value();
        boolean newerSession = current != null && current.connected()
                && (!current.gatewayId().equals(unsent.gatewayId()) || current.epoch() > unsent.epoch());
        if (message == null) {
            // Not routed by this job (a broadcast's copy), or settled already (delivered, or expired): its sender
            // has heard, or asked for nothing; one past its deadline ends here without a word.
            if (unsent.reason() == UnsentMessage.Reason.EXPIRED
                    || ctx.timerService().currentProcessingTime() >= mtd.expiresAt(unicast)) {
                expired.inc();
                return;
            }
            if (unsent.routed()) {
                // Why: taken in again, a message its node had (its DELIVERED read before this copy's unsent) would
                // expire later as undelivered, or reach the node twice. After a restore its unicast comes again.
                unsentOfSettled.inc();
                return;
            }
            if (newerSession) {
                rerouted.inc();
            }
            admit(unicast, newerSession ? current : null, ctx, out);
            return;
        }
        if (unsent.reason() == UnsentMessage.Reason.EXPIRED) {
            forget(message);
            expire(unicast, ctx, unsent.mayHaveArrived()
                    ? "expired before gateway " + unsent.gatewayId() + " could send it again; it may have reached the "
                            + "node on an earlier session, whose acknowledgement was lost (the node's protocol cannot "
                            + "be asked)"
                    : "expired before gateway " + unsent.gatewayId() + " could send it");
            return;
        }
        if (!mtd.enabled()) {
            forget(message);
            drop(unicast, ctx, "the node's session could not take it and the MTD is off");
        } else if (newerSession) {
            rerouted.inc();
            send(current, unsent.mayHaveArrived() ? message : message.unsent(), ctx, out);
        } else if (!unsent.mayHaveArrived()) {
            pending.put(unicast.messageId(), message.unsent());
        } // else it stays in flight on that session: past its deadline the node's next session asks for it
    }

    /**
     * A session opened: everything pending that was not sent on it goes there in original order, past
     * its deadline expired instead. With the MTD off what an older session held is dropped.
     */
    private void sendPending(Route to, Context ctx, Collector<Outbound> out) throws Exception {
        Backlog book = backlog.value();
        if (book == null || book.count() == 0) {
            return;
        }
        for (PendingMessage message : inOriginalOrder()) {
            if (message.sentOn(to.gatewayId(), to.epoch())) {
                continue;
            }
            if (!mtd.enabled()) {
                forget(message);
                drop(message.unicast(), ctx, "the node's session ended and the MTD is off");
                continue;
            }
            (message.inFlight() ? resent : replayed).inc();
            send(to, message, ctx, out);
        }
    }

    /**
     * Sends a pending message on this session, or, past its deadline, expires it. One past its deadline that is still
     * in flight on an older session goes all the same: it may have reached the node there, and the gateway, which
     * never sends a message's content past its deadline, asks the node, whose answer (DELIVERED, or unsent as
     * EXPIRED) decides. So a sender never hears EXPIRED for a message its reliable-UDP node had; an MQTT device cannot
     * be asked, and its gateway's EXPIRED then says that the message may have arrived.
     */
    private void send(Route to, PendingMessage message, Context ctx, Collector<Outbound> out) throws Exception {
        Unicast unicast = message.unicast();
        long deadline = mtd.expiresAt(unicast);
        if (ctx.timerService().currentProcessingTime() >= deadline && !message.inFlight() && !recovering(ctx)) {
            forget(message);
            expire(unicast, ctx, "TTL passed while the node was not reachable");
            return;
        }
        routed.inc();
        PendingMessage sent = message.sentTo(to);
        pending.put(unicast.messageId(), sent);
        backlog.update(expireNoLaterThan(expiryOf(sent), backlog(), ctx));
        out.collect(new Outbound(to.gatewayId(), to.epoch(), unicast, deadline));
    }

    /**
     * The backlog with room for one more message, or null when the arriving one is dropped: a full
     * set drops its oldest message or the arrival, by the policy, and tells the sender either way.
     */
    private Backlog makeRoom(Unicast arriving, Context ctx) throws Exception {
        Backlog book = backlog();
        if (book.count() < mtd.maxBufferedPerMn()) {
            return book;
        }
        String why = "the node's pending messages are at their bound (" + book.count() + ")";
        if (mtd.dropPolicy() == MtdSettings.DropPolicy.NEWEST) {
            drop(arriving, ctx, why);
            return null;
        }
        PendingMessage oldest = inOriginalOrder().get(0);
        pending.remove(oldest.unicast().messageId());
        drop(oldest.unicast(), ctx, why + ": oldest dropped");
        return book.removed();
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Outbound> out) throws Exception {
        startRecoveryWindow(ctx);
        Backlog book = backlog.value();
        if (book != null && book.timerAt() == timestamp) {
            long earliest = Long.MAX_VALUE;
            for (PendingMessage message : inOriginalOrder()) {
                long expiry = expiryOf(message);
                if (expiry <= timestamp) {
                    pending.remove(message.unicast().messageId());
                    book = book.removed();
                    expire(message.unicast(), ctx, message.inFlight()
                            ? "TTL passed before the node acknowledged it"
                            : "TTL passed while the node was disconnected");
                } else {
                    earliest = Math.min(earliest, expiry);
                }
            }
            book = book.withTimer(0);
            if (book.count() == 0) {
                backlog.clear();
            } else {
                backlog.update(expireNoLaterThan(earliest, book, ctx));
            }
        }
        Long forgetAt = forgetRouteAt.value();
        if (forgetAt != null && forgetAt == timestamp) {
            Route current = route.value();
            if (current != null && (!current.connected() || current.declaredLost())) {
                route.clear();
            }
            forgetRouteAt.clear();
        }
    }

    private long expiryOf(PendingMessage message) {
        long deadline = mtd.expiresAt(message.unicast());
        long expiry = message.inFlight() && deadline < Long.MAX_VALUE - ACK_GRACE_MS ? deadline + ACK_GRACE_MS : deadline;
        return Math.max(expiry, recoveryEndsAt);
    }

    /** The first call after a restore (the due timers come first) opens the recovery window. */
    private void startRecoveryWindow(Context ctx) {
        if (restored) {
            restored = false;
            recoveryEndsAt = ctx.timerService().currentProcessingTime() + ACK_GRACE_MS;
        }
    }

    private boolean recovering(Context ctx) {
        return ctx.timerService().currentProcessingTime() < recoveryEndsAt;
    }

    /** The backlog with its timer at {@code expiry} if that is earlier than the one it has. */
    private static Backlog expireNoLaterThan(long expiry, Backlog book, Context ctx) {
        if (book.timerAt() != 0 && book.timerAt() <= expiry) {
            return book;
        }
        if (book.timerAt() != 0) {
            ctx.timerService().deleteProcessingTimeTimer(book.timerAt());
        }
        ctx.timerService().registerProcessingTimeTimer(expiry);
        return book.withTimer(expiry);
    }

    private Backlog backlog() throws Exception {
        Backlog book = backlog.value();
        return book == null ? Backlog.EMPTY : book;
    }

    /** Takes a message out of the pending set (its timer stays: it finds nothing to do or the next one). */
    private void forget(PendingMessage message) throws Exception {
        pending.remove(message.unicast().messageId());
        backlog.update(backlog().removed());
    }

    private List<PendingMessage> inOriginalOrder() throws Exception {
        List<PendingMessage> all = new ArrayList<>();
        pending.values().forEach(all::add);
        // Why: messages a gateway failed to send come back after newer ones arrived.
        all.sort(ORIGINAL_ORDER);
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

    private void cancelForgetTimer(Context ctx) throws Exception {
        Long at = forgetRouteAt.value();
        if (at != null) {
            ctx.timerService().deleteProcessingTimeTimer(at);
            forgetRouteAt.clear();
        }
    }
}
