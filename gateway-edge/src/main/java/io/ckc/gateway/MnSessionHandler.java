package io.ckc.gateway;

import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.GatewayAddress;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.mrudp.ReliableSession;
import io.ckc.protocol.netty.AddressedFrame;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Broadcast;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GatewayList;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.UnsentMessage;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The gateway's protocol logic: sessions, reliable delivery both ways, publishing MN messages and
 * events to Kafka, delivering unicasts from the core, ping windows and load reports for the PoA
 * manager, forwarding its gateway list and handover commands. All session state lives on the
 * channel's event loop; other threads hand work over with {@link #command} and {@link #gatewayList}.
 */
final class MnSessionHandler extends SimpleChannelInboundHandler<AddressedFrame> {

    private static final Logger LOG = LoggerFactory.getLogger(MnSessionHandler.class);
    /** Retransmission timers are checked this often; well below the smallest retransmission timeout. */
    static final long TICK_MS = 10;
    /** Idle sessions are looked for this often. */
    static final long SWEEP_MS = 1_000;
    /**
     * A node that acknowledged a handover leaves within its drain time (2 s by default); after this
     * grace its session here is closed even if its Disconnect datagram was lost, so the load reports
     * the PoA manager balances by do not count it.
     */
    static final long HANDOVER_GRACE_MS = 5_000;
    /**
     * A ping window's pings leave in slices this far apart, spread over the first half of the window,
     * and never fewer than {@link #PING_BURST} per slice. Why: a hundred thousand pings at once come
     * back as a hundred thousand pongs at once, more than the socket's receive buffer holds; the pongs
     * dropped there are a node's only sign of life, and its session timed out.
     */
    static final long PING_SLICE_MS = 5;
    static final int PING_BURST = 1_000;

    private final GatewayConfig config;
    private final CorePublisher publisher;
    private final GatewayMetrics metrics;
    private final Topics topics;
    private final Map<UUID, MnSession> sessions = new HashMap<>();
    private final Set<MnSession> inFlight = new LinkedHashSet<>();
    private Channel channel;
    private final List<ScheduledFuture<?>> timers = new ArrayList<>();
    private LoadSampler loadSampler;
    private long pingIntervalMs;
    private long pingWindowMs;
    private PingWindow window;
    private long lastWindowStartNanos;
    private ScheduledFuture<?> nextWindow;
    private List<GatewayAddress> gatewayList = List.of();
    private long gatewayListSentMs;

    MnSessionHandler(GatewayConfig config, CorePublisher publisher, GatewayMetrics metrics) {
        this.config = config;
        this.publisher = publisher;
        this.metrics = metrics;
        this.topics = config.topics();
        this.pingIntervalMs = config.pingIntervalMs();
        this.pingWindowMs = config.pingWindowMs();
        metrics.pingWindowMs.set(pingWindowMs);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        channel = ctx.channel();
        timers.add(ctx.executor().scheduleAtFixedRate(this::retransmit, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS));
        timers.add(ctx.executor().scheduleAtFixedRate(this::expireIdleSessions, SWEEP_MS, SWEEP_MS,
                TimeUnit.MILLISECONDS));
        loadSampler = new LoadSampler(config.gatewayId(), config.reportPeriodMs(),
                List.of(Thread.currentThread().getId()));
        timers.add(ctx.executor().scheduleAtFixedRate(this::reportLoad, config.reportPeriodMs(),
                config.reportPeriodMs(), TimeUnit.MILLISECONDS));
        lastWindowStartNanos = System.nanoTime();
        scheduleNextWindow();
        InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
        publisher.hello(new HelloPoA(config.gatewayId(), config.publicHost(), bound.getPort(), null,
                System.currentTimeMillis()));
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        timers.forEach(t -> t.cancel(false));
        if (nextWindow != null) {
            nextWindow.cancel(false);
        }
        for (MnSession session : new ArrayList<>(sessions.values())) {
            close(session, "gateway-stopped", UnsentMessage.Reason.CONNECTION_BROKEN);
        }
        super.channelInactive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, AddressedFrame in) {
        Frame frame = in.frame();
        long now = nowMs();
        if (frame instanceof Frame.Connect connect) {
            onConnect(connect, in.peer(), now);
            return;
        }
        MnSession session = sessions.get(frame.mnId());
        if (session == null || session.epoch != frame.epoch()) {
            if (!(frame instanceof Frame.Error) && !(frame instanceof Frame.Disconnect)) {
                int seq = frame instanceof Frame.Data data ? data.seq() : 0;
                send(new Frame.Error(frame.mnId(), frame.epoch(), ErrorCode.UNKNOWN_SESSION, seq,
                        "no session with this epoch; connect again"), in.peer());
            }
            return;
        }
        session.heardFrom(in.peer(), now);
        if (frame instanceof Frame.Data data) {
            for (ReliableSession.Received received : session.reliable.onData(data.seq(), data.body())) {
                onMessage(session, received);
            }
        } else if (frame instanceof Frame.Ack ack) {
            onAck(session, ack, now);
        } else if (frame instanceof Frame.Ping ping) {
            send(new Frame.Pong(ping.mnId(), ping.epoch(), ping.timestamp()), in.peer());
        } else if (frame instanceof Frame.Pong pong) {
            if (window == null || !window.onPong(pong.mnId(), pong.timestamp(), System.nanoTime())) {
                metrics.latePongs.inc();
            }
        } else if (frame instanceof Frame.Disconnect) {
            close(session, "disconnect", UnsentMessage.Reason.CONNECTION_BROKEN);
        } else if (frame instanceof Frame.Error error) {
            LOG.debug("MN {} reported {}: {}", frame.mnId(), error.code(), error.message());
        }
        // ConnectAck from an MN is meaningless and ignored.
    }

    private void onConnect(Frame.Connect connect, InetSocketAddress peer, long now) {
        MnSession existing = sessions.get(connect.mnId());
        if (existing != null) {
            if (existing.epoch == connect.epoch()) {
                existing.heardFrom(peer, now);
                if (existing.announced) {
                    sendConnectAck(existing); // our first ack was lost
                }
                return;
            }
            if (existing.epoch > connect.epoch()) {
                send(new Frame.Error(connect.mnId(), connect.epoch(), ErrorCode.STALE_EPOCH, 0,
                        "a newer session exists"), peer);
                return;
            }
            close(existing, "replaced", UnsentMessage.Reason.SESSION_REPLACED);
        }
        MnSession session = new MnSession(connect.mnId(), connect.epoch(),
                new ReliableSession(connect.mnId(), connect.epoch(), config.reliability(), this::sendToSessionPeer),
                peer, now);
        sessions.put(session.mnId, session);
        metrics.sessions.set(sessions.size());
        metrics.connects.inc();
        // The node hears it is connected only once the core knows where it is.
        publisher.event(MnEvent.connected(session.mnId.toString(), config.gatewayId(), session.epoch,
                        System.currentTimeMillis()))
                .whenComplete((ok, error) -> channel.eventLoop().execute(() -> {
                    if (sessions.get(session.mnId) != session) {
                        return;
                    }
                    if (error == null) {
                        session.announced = true;
                        sendConnectAck(session);
                        if (!gatewayList.isEmpty()) {
                            sendReliably(session, new Body.GatewayList(gatewayList));
                        }
                    } else {
                        forget(session); // the node retries its connect
                    }
                }));
    }

    private void onMessage(MnSession session, ReliableSession.Received received) {
        int seq = received.seq();
        if (!(received.body() instanceof Body.Outgoing outgoing)) {
            reject(session, seq, ErrorCode.MALFORMED, "a mobile node may only send messages and groupcasts");
            return;
        }
        if (outgoing.payload().length > config.maxPayloadBytes()) {
            reject(session, seq, ErrorCode.PAYLOAD_TOO_LARGE,
                    "payload of " + outgoing.payload().length + " bytes exceeds " + config.maxPayloadBytes());
            return;
        }
        if (outgoing instanceof Body.MnGroupcast groupcast) {
            onGroupcast(session, seq, groupcast);
            return;
        }
        Body.MnMessage message = (Body.MnMessage) outgoing;
        if (!Topics.isValidChannel(message.channel())) {
            reject(session, seq, ErrorCode.FORBIDDEN_CHANNEL, "invalid channel name '" + message.channel() + "'");
            return;
        }
        if (!publisher.channelExists(message.channel())) {
            reject(session, seq, ErrorCode.UNKNOWN_CHANNEL, "no topic " + topics.app(message.channel()));
            return;
        }
        String mnId = session.mnId.toString();
        long now = System.currentTimeMillis();
        reportContext(mnId, message.context(), now);
        acknowledgeOnceWritten(session, seq, metrics.messagesIn,
                publisher.appMessage(new AppMessage(message.messageId().toString(), mnId, config.gatewayId(),
                        message.channel(), message.payload(), message.context(), now)));
    }

    /** A node's groupcast goes to ckc.groupcast with the node as sender; the delivery job finds the members. */
    private void onGroupcast(MnSession session, int seq, Body.MnGroupcast groupcast) {
        if (!Topics.isValidGroup(groupcast.group())) {
            reject(session, seq, ErrorCode.MALFORMED, "group '" + groupcast.group() + "' is not <definerId>/<name>");
            return;
        }
        String mnId = session.mnId.toString();
        long now = System.currentTimeMillis();
        reportContext(mnId, groupcast.context(), now);
        acknowledgeOnceWritten(session, seq, metrics.groupcastsIn, publisher.groupcast(new Groupcast(
                groupcast.messageId().toString(), mnId, groupcast.group(), groupcast.payload(), null, now, false)));
    }

    private void reportContext(String mnId, io.ckc.protocol.frame.Context context, long now) {
        if (context != null) {
            publisher.context(new ContextReport(mnId, config.gatewayId(), now, context));
        }
    }

    /** The node's message counts as accepted once it is in Kafka: then, and only then, it is acknowledged. */
    private void acknowledgeOnceWritten(MnSession session, int seq, io.prometheus.metrics.core.metrics.Counter accepted,
                                        java.util.concurrent.CompletionStage<Void> written) {
        written.whenComplete((ok, error) -> channel.eventLoop().execute(() -> {
            if (error == null) {
                accepted.inc();
                session.reliable.acknowledge(seq);
            } else {
                reject(session, seq, ErrorCode.PUBLISH_FAILED, "core unavailable: " + error.getMessage());
            }
        }));
    }

    private void onAck(MnSession session, Frame.Ack ack, long now) {
        Body acked = session.reliable.onAck(ack.seq(), now);
        if (acked instanceof Body.Delivery delivery) {
            Unicast unicast = session.unacknowledged.remove(delivery.messageId());
            metrics.messagesOut.inc();
            if (unicast != null) {
                delivered(session, unicast);
            }
        } else if (acked instanceof Body.Handover) {
            session.leavingDeadlineMs = now + HANDOVER_GRACE_MS;
        }
    }

    private void delivered(MnSession session, Unicast unicast) {
        if (unicast.receipt()) {
            publisher.receipt(Receipt.of(unicast, Receipt.Outcome.DELIVERED, config.gatewayId(), null,
                    System.currentTimeMillis()));
        }
        if (config.miniBuffer()) {
            if (session.recentlyAcknowledged.size() == 2) {
                session.recentlyAcknowledged.removeFirst();
            }
            session.recentlyAcknowledged.addLast(unicast);
        }
    }

    /** Hands a command from the core (delivery, handover, ping settings) to the event loop; any thread. */
    void command(GatewayCommand command) {
        channel.eventLoop().execute(() -> {
            if (command instanceof GatewayCommand.Deliver deliver) {
                deliver(deliver.unicast(), deliver.epoch(), deliver.expiresAt());
            } else if (command instanceof GatewayCommand.Handover handover) {
                handOver(handover);
            } else if (command instanceof GatewayCommand.ConfigurePing ping) {
                configurePing(ping);
            }
        });
    }

    /**
     * A broadcast from the core: every node connected here now gets it as a unicast on its session
     * (a failed delivery goes to ckc.unsent like any other). Any thread.
     */
    void broadcast(Broadcast broadcast) {
        channel.eventLoop().execute(() -> {
            for (MnSession session : new ArrayList<>(sessions.values())) {
                if (session.announced) {
                    metrics.broadcasts.inc();
                    deliver(broadcast.toNode(session.mnId.toString()), session.epoch, broadcast.expiresAt());
                }
            }
        });
    }

    /** The PoA manager's latest gateway list; forwarded to every node when it changes. Any thread. */
    void gatewayList(GatewayList list) {
        List<GatewayAddress> addresses = list.gateways().stream()
                .map(e -> new GatewayAddress(e.gatewayId(), e.udpHost(), e.udpPort())).toList();
        channel.eventLoop().execute(() -> {
            if (addresses.equals(gatewayList)) {
                return;
            }
            // Why: scores move the order all the time; a reliable message to every node on each move
            // would load the gateway for little. A new or lost gateway goes out at once.
            boolean sameGateways = new HashSet<>(addresses).equals(new HashSet<>(gatewayList));
            long now = nowMs();
            if (sameGateways && now - gatewayListSentMs < config.gatewayListIntervalMs()) {
                return;
            }
            gatewayListSentMs = now;
            gatewayList = addresses;
            metrics.gatewayLists.inc();
            Body.GatewayList body = new Body.GatewayList(addresses);
            for (MnSession session : sessions.values()) {
                if (session.announced) {
                    sendReliably(session, body);
                }
            }
        });
    }

    private void handOver(GatewayCommand.Handover handover) {
        MnSession session = sessionOf(handover.mnId());
        if (session == null || handover.target().gatewayId().equals(config.gatewayId())) {
            metrics.handovers.labelValues("ignored").inc();
            return;
        }
        metrics.handovers.labelValues("forwarded").inc();
        sendReliably(session, new Body.Handover(handover.target()));
    }

    private MnSession sessionOf(String mnId) {
        try {
            return sessions.get(UUID.fromString(mnId));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private void sendReliably(MnSession session, Body body) {
        session.reliable.send(body, nowMs());
        inFlight.add(session);
    }

    private void deliver(Unicast unicast, long routedEpoch, Long expiresAt) {
        UUID mnId;
        try {
            mnId = UUID.fromString(unicast.recipient());
        } catch (IllegalArgumentException e) {
            deadLetter("recipient is not a mobile node id: " + unicast.recipient(), unicast);
            return;
        }
        if (unicast.payload() == null || unicast.payload().length > config.maxPayloadBytes()) {
            deadLetter("payload missing or larger than " + config.maxPayloadBytes() + " bytes", unicast);
            return;
        }
        if (expiresAt != null && System.currentTimeMillis() >= expiresAt) {
            unsent(unicast, routedEpoch, UnsentMessage.Reason.EXPIRED); // the delivery job counts it and tells the sender
            return;
        }
        MnSession session = sessions.get(mnId);
        if (session == null) {
            unsent(unicast, routedEpoch, UnsentMessage.Reason.NOT_CONNECTED);
            return;
        }
        // A session not yet announced still takes it: the node reads it once its connect is acknowledged.
        UUID deliveryId = deliveryIdOf(unicast.messageId());
        session.unacknowledged.put(deliveryId, unicast);
        sendReliably(session, new Body.Delivery(deliveryId, unicast.sender(), unicast.payload()));
    }

    private void configurePing(GatewayCommand.ConfigurePing ping) {
        if (ping.intervalMs() == pingIntervalMs && ping.windowMs() == pingWindowMs) {
            return;
        }
        LOG.info("Ping windows now every {} ms, open {} ms (were {} / {})", ping.intervalMs(), ping.windowMs(),
                pingIntervalMs, pingWindowMs);
        pingIntervalMs = ping.intervalMs();
        pingWindowMs = ping.windowMs();
        metrics.pingWindowMs.set(pingWindowMs);
        if (nextWindow != null) {
            nextWindow.cancel(false); // takes effect now: the next window follows the new interval
        }
        scheduleNextWindow();
    }

    private void scheduleNextWindow() {
        long dueNanos = lastWindowStartNanos + TimeUnit.MILLISECONDS.toNanos(pingIntervalMs);
        long delayNanos = Math.max(0, dueNanos - System.nanoTime());
        nextWindow = channel.eventLoop().schedule(this::openWindow, delayNanos, TimeUnit.NANOSECONDS);
    }

    /** Pings every node, paced; the window closes after its length and becomes a ConnectionReport. */
    private void openWindow() {
        if (window != null) {
            closeWindow(window); // a window as long as the interval closes when the next opens
        }
        long startNanos = System.nanoTime();
        lastWindowStartNanos = startNanos;
        long sentAtMicros = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
        PingWindow opened = new PingWindow(sentAtMicros, startNanos, pingWindowMs);
        window = opened;
        List<MnSession> serving = new ArrayList<>(sessions.size());
        for (MnSession session : sessions.values()) {
            if (session.isServing()) {
                serving.add(session);
            }
        }
        long slices = Math.max(1, pingWindowMs / 2 / PING_SLICE_MS);
        int perSlice = (int) Math.max(PING_BURST, (serving.size() + slices - 1) / slices);
        pingSlice(opened, serving, 0, perSlice);
        channel.eventLoop().schedule(() -> closeWindow(opened), pingWindowMs, TimeUnit.MILLISECONDS);
        scheduleNextWindow();
    }

    /** Pings {@code serving[from, from + perSlice)} still here, then schedules the next slice. */
    private void pingSlice(PingWindow opened, List<MnSession> serving, int from, int perSlice) {
        if (window != opened) {
            return;
        }
        int to = Math.min(serving.size(), from + perSlice);
        long now = System.nanoTime();
        for (int i = from; i < to; i++) {
            MnSession session = serving.get(i);
            if (session.isServing() && sessions.get(session.mnId) == session) {
                opened.pinged(session.mnId, now);
                send(new Frame.Ping(session.mnId, session.epoch, opened.sentAtMicros()), session.peer);
            }
        }
        if (to < serving.size()) {
            channel.eventLoop().schedule(() -> pingSlice(opened, serving, to, perSlice), PING_SLICE_MS,
                    TimeUnit.MILLISECONDS);
        }
    }

    private void closeWindow(PingWindow closing) {
        if (window != closing) {
            return;
        }
        window = null;
        List<UUID> connected = new ArrayList<>(sessions.size());
        for (MnSession session : sessions.values()) {
            if (session.isServing()) {
                connected.add(session.mnId);
            }
        }
        for (var report : closing.close(config.gatewayId(), connected, config.reportChunk())) {
            publisher.connections(report);
        }
        metrics.pingWindows.inc();
    }

    /** Nodes leaving after a handover are not counted: they are on their way to another gateway. */
    private void reportLoad() {
        int staying = 0;
        for (MnSession session : sessions.values()) {
            if (session.isServing()) {
                staying++;
            }
        }
        publisher.load(loadSampler.sample(staying));
    }

    /** Message ids are UUIDs on the wire; any other id maps to a stable name-based UUID, so MNs still dedupe. */
    static UUID deliveryIdOf(String messageId) {
        try {
            return UUID.fromString(messageId);
        } catch (IllegalArgumentException e) {
            return UUID.nameUUIDFromBytes(messageId.getBytes(StandardCharsets.UTF_8));
        }
    }

    private void retransmit() {
        if (inFlight.isEmpty()) {
            return;
        }
        long now = nowMs();
        for (MnSession session : new ArrayList<>(inFlight)) {
            long before = session.reliable.retransmissions();
            ReliableSession.TickResult result = session.reliable.tick(now);
            metrics.retransmissions.inc(session.reliable.retransmissions() - before);
            if (result == ReliableSession.TickResult.BROKEN) {
                fail(session, "broken");
            } else if (result == ReliableSession.TickResult.IDLE && !session.reliable.hasInFlight()) {
                inFlight.remove(session);
            }
        }
    }

    private void expireIdleSessions() {
        long cutoff = nowMs() - config.sessionTimeoutMs();
        long now = nowMs();
        for (MnSession session : new ArrayList<>(sessions.values())) {
            if (session.lastHeardMs < cutoff) {
                fail(session, "timeout");
            } else if (session.leavingDeadlineMs != 0 && now >= session.leavingDeadlineMs) {
                close(session, "handed-over", UnsentMessage.Reason.CONNECTION_BROKEN);
            }
        }
    }

    /**
     * The connection failed (retries exhausted or silent too long). With the mini-buffer on, the
     * last two acknowledged unicasts go to ckc.unsent as well: the paper's guarantee of at least once
     * even if an acknowledgement lied; the node drops the duplicates by message id.
     */
    private void fail(MnSession session, String why) {
        if (config.miniBuffer() && sessions.get(session.mnId) == session) {
            for (Unicast unicast : session.recentlyAcknowledged) {
                unsent(unicast, session.epoch, UnsentMessage.Reason.CONNECTION_BROKEN);
            }
            session.recentlyAcknowledged.clear();
        }
        close(session, why, UnsentMessage.Reason.CONNECTION_BROKEN);
    }

    private void close(MnSession session, String why, UnsentMessage.Reason unsentReason) {
        if (!forget(session)) {
            return;
        }
        metrics.disconnects.labelValues(why).inc();
        publisher.event(MnEvent.disconnected(session.mnId.toString(), config.gatewayId(), session.epoch,
                System.currentTimeMillis()));
        for (Body body : session.reliable.drainUnacknowledged()) {
            if (body instanceof Body.Delivery delivery) {
                Unicast unicast = session.unacknowledged.remove(delivery.messageId());
                if (unicast != null) {
                    unsent(unicast, session.epoch, unsentReason);
                }
            }
        }
        LOG.debug("Session {} epoch {} closed: {}", session.mnId, session.epoch, why);
    }

    private boolean forget(MnSession session) {
        if (!sessions.remove(session.mnId, session)) {
            return false;
        }
        inFlight.remove(session);
        metrics.sessions.set(sessions.size());
        return true;
    }

    private void reject(MnSession session, int seq, ErrorCode code, String message) {
        metrics.rejected.labelValues(code.name()).inc();
        send(new Frame.Error(session.mnId, session.epoch, code, seq, message), session.peer);
    }

    private void unsent(Unicast unicast, long epoch, UnsentMessage.Reason reason) {
        metrics.unsent.labelValues(reason.name()).inc();
        publisher.unsent(new UnsentMessage(unicast, config.gatewayId(), epoch, reason, System.currentTimeMillis()));
    }

    private void deadLetter(String reason, Unicast unicast) {
        metrics.deadLetters.inc();
        LOG.warn("Dead letter for {}: {}", unicast.messageId(), reason);
        publisher.deadLetter(new DeadLetter("gateway:" + config.gatewayId(), topics.gateway(config.gatewayId()), -1,
                -1, reason + " (message " + unicast.messageId() + ")", null, null, System.currentTimeMillis()));
    }

    private void sendConnectAck(MnSession session) {
        send(new Frame.ConnectAck(session.mnId, session.epoch, config.gatewayId(), config.maxPayloadBytes()),
                session.peer);
    }

    private void sendToSessionPeer(Frame frame) {
        MnSession session = sessions.get(frame.mnId());
        if (session != null && session.epoch == frame.epoch()) {
            send(frame, session.peer);
        }
    }

    private void send(Frame frame, InetSocketAddress peer) {
        channel.writeAndFlush(new AddressedFrame(frame, peer), channel.voidPromise());
    }

    private static long nowMs() {
        return System.nanoTime() / 1_000_000;
    }
}
