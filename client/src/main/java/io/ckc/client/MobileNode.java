package io.ckc.client;

import io.ckc.protocol.records.RecentIds;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.GatewayAddress;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.mrudp.ReliableSession;
import io.ckc.protocol.records.Context;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A mobile node (MN): connects to a gateway over the reliable-UDP protocol, sends messages to
 * application channels, receives messages from the core and drops duplicates by message id. It
 * keeps the latest gateway list from the core, reconnects after a loss to the best-ranked gateway
 * it can reach, and follows handover commands without losing or duplicating messages. Public
 * methods are thread-safe; all state lives on the transport's event loop and callbacks run there.
 */
public final class MobileNode {

    /** Where a node stands with its gateway. */
    public enum State { DISCONNECTED, CONNECTING, CONNECTED, CLOSED }

    /** Why a node's latest session ended (or could not be opened). */
    public enum SessionEnd {
        /** The application ended it, closed the node, or moved it to another gateway. */
        LEFT(false),
        /** A frame went unacknowledged through every retransmission ({@code ReliabilityConfig.maxRetries}). */
        RETRIES_EXHAUSTED(true),
        /** Nothing came from the gateway for {@code ClientConfig.silenceTimeoutMs}. */
        GATEWAY_SILENT(true),
        /** The gateway answered that it no longer holds the session (it timed it out, restarted, or a newer one replaced it). */
        ENDED_BY_GATEWAY(false),
        /** No connect was answered within {@code ClientConfig.connectAttempts}. */
        CONNECT_FAILED(true),
        /** The device's link dropped and came back ({@link MobileNode#linkLost}): a new session at the same gateway. */
        LINK_LOST(false);

        /** Whether the gateway counts as failed: the node reconnects elsewhere first. */
        final boolean gatewayFailed;

        SessionEnd(boolean gatewayFailed) {
            this.gatewayFailed = gatewayFailed;
        }
    }

    private final UUID id;
    private final NodeListener listener;
    private final ClientConfig config;
    private volatile ClientTransport transport;
    private final Mailbox mailbox = new Mailbox(() -> transport.eventLoop());
    private volatile InetSocketAddress gateway;
    private volatile State state = State.DISCONNECTED;
    private volatile String gatewayId;
    private volatile int maxPayloadBytes = 16 * 1024;
    private volatile SessionEnd lastSessionEnd;
    /** Deliveries that came again with an id already seen, dropped before the application (a resend after a fault). */
    private final AtomicLong duplicatesDropped = new AtomicLong();

    private volatile long epoch;
    private ReliableSession session;
    private final Outbox outbox;
    /**
     * Messages the gateway refused and the node sends again (it could not write them to the core, or the core is
     * behind), by the sequence number they were refused under in this session: in the order the application sent
     * them. They go again before anything newer.
     */
    private final TreeMap<Integer, Body.Outgoing> retrying = new TreeMap<>();
    /** The first of them, sent again alone while the gateway may still refuse it; the others follow once it is taken. */
    private Body.Outgoing retryProbe;
    /** When they, and the outbox behind them, go to the open session again. */
    private long outboxRetryAtMs = Long.MAX_VALUE;
    /** When the transport ticks this node next; Long.MAX_VALUE when it needs no tick. Owned by the transport. */
    long tickAtMs = Long.MAX_VALUE;
    private final RecentIds<UUID> recentIds;
    private final LivenessProbe liveness;
    private final ConnectBackoff backoff;
    private boolean reconnectWanted;
    private final HandoverDrain handover;
    private final FailoverOrder failover = new FailoverOrder();

    public MobileNode(UUID id, ClientTransport transport, InetSocketAddress gateway, NodeListener listener,
                      ClientConfig config) {
        this.id = id;
        this.transport = transport;
        this.gateway = gateway;
        this.listener = listener;
        this.config = config;
        this.recentIds = new RecentIds<>(config.dedupeWindow());
        this.backoff = new ConnectBackoff(config.connectRetryMs(), config.reconnectDelayMs());
        this.liveness = new LivenessProbe(config.keepaliveMs(), config.silenceTimeoutMs(), config.unansweredProbeMs());
        this.outbox = new Outbox(config.outboxCapacity(), config.outboxTtlMs());
        this.handover = new HandoverDrain(config.handoverDrainMs());
        // Epochs grow across restarts of the device too: a disconnect of an older session never wins.
        this.epoch = System.currentTimeMillis() * 1_000;
    }

    public UUID id() {
        return id;
    }

    public State state() {
        return state;
    }

    public boolean isConnected() {
        return state == State.CONNECTED;
    }

    /** The id of the gateway the node is connected to, or null. */
    public String gatewayId() {
        return gatewayId;
    }

    public InetSocketAddress gatewayAddress() {
        return gateway;
    }

    /** Why the latest session ended, or null while none has; set before {@link NodeListener#disconnected} runs. */
    public SessionEnd lastSessionEnd() {
        return lastSessionEnd;
    }

    /** The latest list of active gateways from the core, best-ranked first; empty until one arrives. */
    public List<GatewayAddress> gatewayList() {
        return failover.gateways();
    }

    /** Opens a session with the gateway; {@link NodeListener#connected} tells when it is up. */
    public void connect() {
        onLoop(() -> {
            if (state == State.CLOSED) {
                return;
            }
            transport.attach(this);
            reconnectWanted = config.autoReconnect();
            if (state == State.DISCONNECTED) {
                startConnecting(nowMs());
            }
        });
    }

    /**
     * Moves the node to a gateway of the application's choice: tells the old gateway the session ends,
     * and connects there. Messages not yet acknowledged go there, first.
     */
    public void connectTo(InetSocketAddress newGateway) {
        onLoop(() -> {
            if (state == State.CLOSED) {
                return;
            }
            if (state != State.DISCONNECTED) {
                transport.send(new Frame.Disconnect(id, epoch), gateway);
                handover.cancel();
                endSession(SessionEnd.LEFT);
            }
            gateway = newGateway;
            transport.attach(this);
            reconnectWanted = config.autoReconnect();
            startConnecting(nowMs());
        });
    }

    /**
     * Sends a message to core application channel {@code channel} (topic {@code app.<channel>}).
     * While no gateway takes it (not yet connected, or moving after its gateway failed) the message
     * waits in the node's outbox and goes to the next session, whichever gateway that is on.
     *
     * @return the message id
     * @throws IllegalArgumentException for a channel name that is not allowed or a payload above the gateway's limit
     */
    public UUID send(String channel, byte[] payload, Context context) {
        if (!Topics.isValidChannel(channel)) {
            throw new IllegalArgumentException("invalid channel name '" + channel + "'");
        }
        checkPayload(payload);
        UUID messageId = UUID.randomUUID();
        enqueue(new Body.MnMessage(messageId, channel, context, payload));
        return messageId;
    }

    /**
     * Sends a message to every current member of a group (paper section 7): {@code group} is
     * {@code <definerId>/<name>}, as the group definers name groups. Members get it as a message
     * whose sender is this node's id.
     *
     * @return the message id
     * @throws IllegalArgumentException for a malformed group name or a payload above the gateway's limit
     */
    public UUID sendToGroup(String group, byte[] payload, Context context) {
        if (!Topics.isValidGroup(group)) {
            throw new IllegalArgumentException("group '" + group + "' is not <definerId>/<name>");
        }
        checkPayload(payload);
        UUID messageId = UUID.randomUUID();
        enqueue(new Body.MnGroupcast(messageId, group, context, payload));
        return messageId;
    }

    private void checkPayload(byte[] payload) {
        if (payload.length > maxPayloadBytes) {
            throw new IllegalArgumentException(
                    "payload of " + payload.length + " bytes exceeds the gateway's limit of " + maxPayloadBytes);
        }
    }

    /** Sends at once when connected, else keeps it in the outbox; unsent after close or when the outbox is full. */
    private void enqueue(Body.Outgoing message) {
        onLoop(() -> {
            if (state == State.CONNECTED && !handover.draining() && outbox.isEmpty() && retrying.isEmpty()
                    && retryProbe == null) {
                session.send(message, nowMs());
                transport.activate(this);
            } else if (state == State.CLOSED || !outbox.offer(message, nowMs())) {
                listener.unsentMessages(this, List.of(message));
            }
        });
    }


    /**
     * The device's network dropped and is back (a tunnel, a cell change, a modem reset): the session
     * ends without a word to the gateway and a new one opens at once with the same gateway. Messages
     * not yet acknowledged, and the outbox, go to the new session; none is handed back.
     */
    public void linkLost() {
        onLoop(() -> {
            if (state == State.CONNECTED || state == State.CONNECTING) {
                connectionLost(SessionEnd.LINK_LOST);
            }
        });
    }

    /** Messages waiting for a gateway to take them (refused ones to go again, and the outbox); read it on the node's event loop. */
    int outboxSize() {
        return outbox.size() + retrying.size();
    }

    /**
     * Adds what this node holds of its application's messages to {@code held}: [0] waiting for a gateway to take them
     * (the outbox, refused ones to go again), [1] in its session waiting for room in a window, [2] sent and not
     * acknowledged yet. Read it on the node's event loop.
     */
    void addHeld(long[] held) {
        held[0] += outboxSize() + (retryProbe != null ? 1 : 0);
        if (session != null) {
            held[1] += session.queued();
            held[2] += session.unacknowledged();
        }
    }

    /** The epoch of the node's current (or latest) session: the session the core routes deliveries to. */
    public long epoch() {
        return epoch;
    }

    /** Deliveries dropped as duplicates of one already received (same message id), since the node was made. */
    public long duplicatesDropped() {
        return duplicatesDropped.get();
    }

    /**
     * Ends the session on purpose and does not reconnect until {@link #connect()}: what the gateway has not
     * acknowledged, and what the application sends meanwhile, waits in the outbox (bounded, each message for its
     * TTL) for the next session, as a device out of coverage keeps it; {@link #close()} hands back what is left.
     */
    public void disconnect() {
        onLoop(this::leaveSession);
    }

    /**
     * Moves the node to another socket, as when a device changes network (new IP or port). The
     * session survives: the gateway follows the node's latest address.
     */
    public void migrate(ClientTransport newTransport) {
        onLoop(() -> {
            DtlsClientHandler.Connection keptSession = transport.detachMoving(this);
            if (session != null) {
                session.useWindow(null); // its frames in flight leave the old socket's window, on the old socket's loop
            }
            transport = newTransport; // the mailbox follows: what was queued behind this runs on the new loop, in order
            mailbox.runNext(() -> {
                newTransport.attachMoved(this, keptSession);
                if (session != null) {
                    session.useWindow(newTransport.window());
                }
                if (state == State.CONNECTED) {
                    transport.send(new Frame.Ping(id, epoch, System.currentTimeMillis()), gateway);
                    if (session.hasInFlight()) {
                        transport.activate(this);
                    }
                } else if (state == State.CONNECTING) {
                    transport.activate(this);
                }
            });
        });
    }

    /** Disconnects and detaches the node for good; what the outbox still holds goes to the listener as unsent. */
    public void close() {
        onLoop(() -> {
            leaveSession();
            state = State.CLOSED;
            transport.detach(this);
            List<Body.Outgoing> left = outbox.takeAll();
            if (!left.isEmpty()) {
                listener.unsentMessages(this, left);
            }
        });
    }

    // Everything below runs on the transport's event loop.

    void onFrame(Frame frame, InetSocketAddress from) {
        if (frame.epoch() != epoch || state == State.CLOSED || state == State.DISCONNECTED) {
            return; // a frame of an older session
        }
        long now = nowMs();
        liveness.heard(now);
        if (session != null) {
            session.heard(now); // any frame of the session shows the gateway alive, however slow its acks
        }
        if (frame instanceof Frame.ConnectAck ack) {
            if (state == State.CONNECTING) {
                onConnected(ack, now);
            }
        } else if (frame instanceof Frame.Error error && error.code() == ErrorCode.BUSY && error.seq() == 0) {
            if (state == State.CONNECTING) { // BUSY naming no message answers a connect
                backoff.busy(now);
            }
        } else if (state != State.CONNECTED) {
            return;
        } else if (frame instanceof Frame.Data data) {
            for (ReliableSession.Received received : session.onData(data.seq(), data.body())) {
                Body body = received.body();
                UUID pastDeadline = pastDeadline(body);
                if (pastDeadline != null && !recentIds.seen(pastDeadline)) {
                    // a delivery this node never had (on this session or an earlier one), past its deadline now
                    session.refuse(received.seq(), new Frame.Error(id, epoch, ErrorCode.EXPIRED, received.seq(),
                            "expired before it could be handed up"));
                    continue;
                }
                session.acknowledge(received.seq());
                if (body instanceof Body.Delivery delivery) {
                    if (recentIds.firstTime(delivery.messageId())) {
                        listener.newMessageReceived(this,
                                new ReceivedMessage(delivery.messageId(), delivery.sender(), delivery.payload()));
                    } else {
                        duplicatesDropped.incrementAndGet();
                    }
                } else if (body instanceof Body.Handover handover) {
                    onHandover(handover.target(), now);
                } else if (body instanceof Body.GatewayList list) {
                    failover.update(list.gateways());
                }
            }
        } else if (frame instanceof Frame.Ack ack) {
            Body acked = session.onAck(ack.seq(), now);
            if (acked != null && acked == retryProbe) { // the core takes messages again: the others follow
                retryProbe = null;
                sendWaiting(now);
            }
        } else if (frame instanceof Frame.Ping ping) {
            transport.send(new Frame.Pong(id, epoch, ping.timestamp()), gateway);
        } else if (frame instanceof Frame.Error error) {
            onError(error, now);
        }
    }

    /** Returns whether the node still needs ticks. */
    boolean tick(long now) {
        if (state == State.CONNECTING) {
            if (backoff.due(now)) {
                if (backoff.attempts() >= config.connectAttempts()) {
                    connectionLost(SessionEnd.CONNECT_FAILED);
                    return true;
                }
                sendConnect(now);
            }
            return true;
        }
        if (state == State.DISCONNECTED) {
            if (reconnectWanted && backoff.due(now)) {
                startConnecting(now);
            }
            return reconnectWanted;
        }
        if (state != State.CONNECTED) {
            return false;
        }
        if (session.tick(now) == ReliableSession.TickResult.BROKEN) {
            connectionLost(SessionEnd.RETRIES_EXHAUSTED);
            return reconnectWanted;
        }
        if (session.hasInFlight() && !heedLiveness(now, true)) {
            return reconnectWanted;
        }
        List<Body.Outgoing> late = outgoing(session.expireQueued(now, config.queueLimitMs()));
        if (!late.isEmpty()) {
            if (retryProbe != null && late.stream().anyMatch(message -> message == retryProbe)) {
                // Shed while it waited for room in the window: no answer will come for it, and what waits behind it
                // goes on without it, as when it is refused again (it waited for that answer forever once).
                retryProbe = null;
                outboxRetryAtMs = now;
            }
            listener.unsentMessages(this, late);
        }
        if (handover.draining()) {
            if (handover.due(session.hasInFlight(), now)) {
                completeHandover(now);
            }
            return true;
        }
        if (now >= outboxRetryAtMs && !session.hasInFlight()) {
            // Why wait until nothing is in flight: a refusal still on its way (lost, sent again) belongs before those
            // refused after it, and the gateway writes again from whichever refused message comes first.
            outboxRetryAtMs = Long.MAX_VALUE;
            if (retrying.isEmpty()) {
                sendWaiting(now);
            } else {
                // Alone: while the core cannot take it (Kafka down), one refusal a second, not a window's worth.
                retryProbe = retrying.pollFirstEntry().getValue();
                session.send(retryProbe, now);
            }
        }
        return session.hasInFlight() || !outbox.isEmpty() || !retrying.isEmpty();
    }

    /**
     * When a node that {@link #tick} kept active needs its next tick: one connecting, handing over, retrying refused
     * messages or with messages waiting for room in the window every tick; one with frames in flight when its next
     * retransmission may be due or its outbox may be retried, and at most {@link ClientTransport#MAX_TICK_GAP_MS} on
     * (its liveness probe, whose intervals are seconds, runs that much late at most).
     */
    long nextTickMs(long now) {
        long soon = now + ClientTransport.TICK_MS;
        if (state != State.CONNECTED || handover.draining() || session.queued() > 0 || !retrying.isEmpty()) {
            return soon;
        }
        long next = Math.min(now + ClientTransport.MAX_TICK_GAP_MS, Math.min(session.nextDeadline(), outboxRetryAtMs));
        return Math.max(soon, next);
    }

    /**
     * The message id of a delivery past its deadline: the gateway's {@code Expired} question, or content that came in
     * time but waited in the receive buffer behind a lost frame until its deadline passed (under 20% loss, up to 3 s
     * past it: perf faults, 2026-11-26); null for anything else.
     */
    private static UUID pastDeadline(Body body) {
        if (body instanceof Body.Expired expired) {
            return expired.messageId();
        }
        return body instanceof Body.Delivery delivery && delivery.expiredAt(System.currentTimeMillis())
                ? delivery.messageId() : null;
    }

    /**
     * Acts on what the liveness probe finds: a ping when one is due, the gateway given up when it went silent
     * (then false). A node with frames unacknowledged heeds it on every tick, an idle one on the sweep. Why on the
     * tick: a node awaiting acknowledgements probes on time, not up to a sweep (500 ms) late each time; the three
     * probes and the silence after them took 3-3.5 s instead of 2.
     */
    private boolean heedLiveness(long now, boolean awaiting) {
        switch (liveness.check(now, awaiting, session.roundTripTimeoutMs(), failover.hasAlternativeTo(gateway))) {
            case SILENT -> {
                connectionLost(SessionEnd.GATEWAY_SILENT);
                return false;
            }
            case PROBE -> transport.send(new Frame.Ping(id, epoch, System.currentTimeMillis()), gateway);
            case ALIVE -> { }
        }
        return true;
    }

    void checkLiveness(long now) {
        if (!outbox.isEmpty()) {
            List<Body.Outgoing> expired = outbox.expire(now);
            if (!expired.isEmpty()) {
                listener.unsentMessages(this, expired);
            }
        }
        if (state == State.CONNECTED) {
            heedLiveness(now, session.hasInFlight());
        }
    }

    private void startConnecting(long now) {
        epoch++;
        state = State.CONNECTING;
        backoff.begin();
        session = null;
        sendConnect(now);
        transport.activate(this);
    }

    private void sendConnect(long now) {
        backoff.attempted(now);
        transport.send(new Frame.Connect(id, epoch), gateway);
    }

    private void onConnected(Frame.ConnectAck ack, long now) {
        gatewayId = ack.gatewayId();
        maxPayloadBytes = ack.maxPayloadBytes();
        session = new ReliableSession(id, epoch, config.reliability(), transport.window(),
                frame -> transport.send(frame, gateway));
        session.connectAnswered(); // the gateway answered: its silence from now on is a sign of congestion
        state = State.CONNECTED;
        liveness.heard(now);
        failover.connected();
        backoff.connected();
        String from = handover.finish();
        if (from != null) {
            listener.handedOver(this, from, gatewayId);
        } else {
            listener.connected(this);
        }
        outboxRetryAtMs = Long.MAX_VALUE;
        if (!outbox.isEmpty()) {
            sendWaiting(now);
            transport.activate(this);
        }
    }

    private void onError(Frame.Error error, long now) {
        if (error.code() == ErrorCode.UNKNOWN_SESSION || error.code() == ErrorCode.STALE_EPOCH) {
            // start a new session there: at once (spread) when the gateway forgot it (it restarted, or timed it out),
            // after the reconnect delay when a newer session of this node's id replaced it
            connectionLost(SessionEnd.ENDED_BY_GATEWAY, error.code() == ErrorCode.UNKNOWN_SESSION);
            return;
        }
        Body refused = error.seq() > 0 ? session.onRefused(error.seq(), now, error.code() == ErrorCode.BUSY) : null;
        boolean probe = refused != null && refused == retryProbe;
        if (probe) {
            retryProbe = null;
        }
        if (refused instanceof Body.Outgoing message && sendsAgain(error.code())) {
            // The gateway could not reach the core (Kafka down or restarting), or the core is behind (BUSY): the
            // message waits, with whatever the application sends meanwhile, and goes again a little later, before
            // them (the gateway refuses the node's later messages until it has it); nothing is handed back.
            retrying.put(probe && !retrying.isEmpty() ? retrying.firstKey() - 1 : error.seq(), message);
            outboxRetryAtMs = Math.min(outboxRetryAtMs, now + config.reconnectDelayMs());
            transport.activate(this);
        } else if (refused instanceof Body.Outgoing message) {
            listener.unsentMessages(this, List.of(message));
            if (probe) { // the others go on without it
                outboxRetryAtMs = now;
                transport.activate(this);
            }
        }
        listener.internalException(this, new MessageRejectedException(error.code(), error.message()));
    }

    /**
     * Whether a message the gateway refused goes again: one it could not write to Kafka always; one refused as BUSY
     * unless the application sheds late messages ({@code maxQueueDelayMs} set), which then gets it back as unsent.
     */
    private boolean sendsAgain(ErrorCode refusal) {
        return refusal == ErrorCode.PUBLISH_FAILED || refusal == ErrorCode.BUSY && !config.sheds();
    }

    /**
     * The session broke or could not be opened. With auto-reconnect the node tries again: after a
     * failure of the gateway itself, at the best-ranked gateway of the latest list that has not
     * failed since the last successful connect.
     */
    private void connectionLost(SessionEnd cause) {
        connectionLost(cause, false);
    }

    /** The same; {@code promptly}: the gateway is alive and lost the session, so the node reconnects there at once. */
    private void connectionLost(SessionEnd cause, boolean promptly) {
        handover.cancel();
        endSession(cause);
        if (handover.finish() != null) {
            listener.disconnected(this); // the handover did not complete: the application hears the loss
        }
        if (reconnectWanted) {
            InetSocketAddress failed = gateway;
            if (cause.gatewayFailed) {
                gateway = failover.next(gateway);
            }
            backoff.lost(nowMs(), promptly || !gateway.equals(failed));
            transport.activate(this);
        }
    }

    private void onHandover(GatewayAddress target, long now) {
        if (handover.begin(target, gatewayId, now)) {
            transport.activate(this);
        }
    }

    /**
     * Leaves the old session once its messages in flight are acknowledged (or the drain time is up:
     * those are sent again on the new session and the application drops the duplicates by id), then
     * connects to the target. Deliveries the old gateway could not finish go back to the core as
     * unsent and are routed to the new session; the node drops any it already has by message id.
     */
    private void completeHandover(long now) {
        GatewayAddress target = handover.leave(gatewayId);
        transport.send(new Frame.Disconnect(id, epoch), gateway);
        outbox.putBack(takeUnacknowledged(), now);
        session = null;
        state = State.DISCONNECTED;
        gatewayId = null;
        gateway = target.socketAddress();
        startConnecting(now);
    }

    /** Tells the gateway the session ends on purpose, ends it, and stops reconnecting. */
    private void leaveSession() {
        reconnectWanted = false;
        if (state == State.CONNECTED || state == State.CONNECTING) {
            transport.send(new Frame.Disconnect(id, epoch), gateway);
            endSession(SessionEnd.LEFT);
        }
    }

    /**
     * Ends the current session. Messages the gateway never acknowledged go back to the outbox, in
     * front, and are sent again on the next session, whenever the node connects again (the receiver
     * drops duplicates by message id); the outbox hands back what waits past its TTL, and
     * {@link #close()} what is left.
     */
    private void endSession(SessionEnd cause) {
        boolean wasConnected = state == State.CONNECTED;
        outbox.putBack(takeUnacknowledged(), nowMs());
        session = null;
        state = State.DISCONNECTED;
        gatewayId = null;
        lastSessionEnd = cause;
        if (wasConnected && !handover.moving()) {
            listener.disconnected(this);
        }
    }

    /**
     * Takes what the session's gateway has not acknowledged, refused or in flight, in the order the application sent
     * it (a refusal may come after a later message's: lost once, it came with the retransmission).
     */
    private List<Body.Outgoing> takeUnacknowledged() {
        NavigableMap<Integer, Body> sent = session == null ? new TreeMap<>() : session.drainUnacknowledgedBySeq();
        List<Body> ordered = new ArrayList<>(sent.size() + retrying.size());
        if (retryProbe != null && sent.values().removeIf(body -> body == retryProbe)) {
            ordered.add(retryProbe); // refused before all the others, it went again alone, last
        }
        List<Map.Entry<Integer, ? extends Body>> bySeq = new ArrayList<>(sent.entrySet());
        bySeq.addAll(retrying.entrySet());
        bySeq.sort(Comparator.comparing(Map.Entry::getKey)); // stable: a tie keeps both
        bySeq.forEach(entry -> ordered.add(entry.getValue()));
        retrying.clear();
        retryProbe = null;
        return outgoing(ordered);
    }

    /** What waited behind refused messages, or for the session: the refused first, then the outbox, in order. */
    private void sendWaiting(long now) {
        retrying.values().forEach(message -> session.send(message, now));
        retrying.clear();
        outbox.takeAll().forEach(message -> session.send(message, now));
    }

    private static List<Body.Outgoing> outgoing(List<Body> bodies) {
        if (bodies.isEmpty()) {
            return List.of();
        }
        List<Body.Outgoing> messages = new ArrayList<>(bodies.size());
        for (Body body : bodies) {
            if (body instanceof Body.Outgoing message) {
                messages.add(message);
            }
        }
        return messages;
    }

    /** Runs an action on the node's current event loop, in call order ({@link Mailbox}). */
    private void onLoop(Runnable action) {
        mailbox.run(action);
    }

    static long nowMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }
}
