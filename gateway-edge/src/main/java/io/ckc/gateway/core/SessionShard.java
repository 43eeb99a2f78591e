package io.ckc.gateway.core;

import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Broadcast;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.prometheus.metrics.core.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The sessions of the nodes whose ids hash to this shard, and everything the gateway does for them
 * whatever protocol carries them: opening a session once the core knows where the node is, uplink to
 * Kafka with the acknowledgement after the write, downlink with acknowledgements, receipts, unsent
 * records and the mini-buffer, this shard's share of each ping window, handover and the gateway list,
 * idle timeouts. Everything runs on the shard's one event loop, so nothing here takes a lock; a
 * protocol adapter calls in on that loop ({@link #inLoop()}, {@link #execute}).
 */
public final class SessionShard {

    private static final Logger LOG = LoggerFactory.getLogger(SessionShard.class);
    /** Idle sessions and handed-over nodes are looked for this often. */
    static final long SWEEP_MS = 1_000;
    /**
     * A node that acknowledged a handover leaves within its drain time (2 s by default); after this
     * grace its session here is closed even if its goodbye was lost, so the load reports the PoA
     * manager balances by do not count it.
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

    private final int index;
    private final EventLoop loop;
    private final CoreOptions config;
    private final CorePublisher publisher;
    private final GatewayMetrics metrics;
    private final Topics topics;
    private final Map<UUID, Session> sessions = new HashMap<>();
    private List<GatewayEndpoints> gatewayList = List.of();
    private PingWindow window;
    private ScheduledFuture<?> sweep;
    /** Sessions announced and not leaving: what the load report counts. Written on the loop, read by the reporter. */
    private volatile int serving;
    /** Deliveries taken from the core and not yet acknowledged by their node: the shard's part of the downlink backlog. */
    private volatile int downlinkOpen;
    private final ConnectAdmission admission;
    private final ContextRefresh contextRefresh;

    private final UplinkAdmission uplinkAdmission;

    SessionShard(int index, int shardCount, EventLoop loop, CoreOptions config, CorePublisher publisher,
                 GatewayMetrics metrics, UplinkAdmission uplinkAdmission) {
        this.uplinkAdmission = uplinkAdmission;
        this.index = index;
        this.loop = loop;
        this.config = config;
        this.publisher = publisher;
        this.metrics = metrics;
        this.topics = config.topics();
        this.admission = new ConnectAdmission(config.admitPerSecond(), shardCount, config.admitPending(), nowMs());
        this.contextRefresh = new ContextRefresh(config.contextRefreshMs());
    }

    /** Deliveries this shard took and its nodes have not acknowledged yet; read from any thread. */
    public int downlinkOpen() {
        return downlinkOpen;
    }

    public int index() {
        return index;
    }

    /** The core's options: the gateway id and payload limit an adapter tells its nodes. */
    public CoreOptions options() {
        return config;
    }

    public EventLoop loop() {
        return loop;
    }

    public boolean inLoop() {
        return loop.inEventLoop();
    }

    public void execute(Runnable task) {
        loop.execute(task);
    }

    void start() {
        sweep = loop.scheduleAtFixedRate(this::sweep, SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
    }

    // ---------------------------------------------------------------------------------------------
    // called by protocol adapters, on the loop

    /** The node's session of any epoch, or null. */
    public Session current(UUID mnId) {
        return sessions.get(mnId);
    }

    /** The node's session of exactly this epoch, or null: a frame of any other epoch has no session. */
    public Session find(UUID mnId, long epoch) {
        Session session = sessions.get(mnId);
        return session != null && session.epoch == epoch ? session : null;
    }

    /**
     * Whether a new session may open now ({@link ConnectAdmission}). A refusal is counted; the adapter tells the
     * node to try again later.
     */
    public boolean admit() {
        if (!admission.admit(nowMs())) {
            metrics.connectsRefused.inc();
            return false;
        }
        return true;
    }

    /**
     * Opens a session with a higher epoch than any the node has here (the adapter checks with
     * {@link #current}); an older session of the node is closed as replaced. The node is told it is
     * connected ({@link NodeLink#accepted}) only once its Connected event is in Kafka: from then on
     * the core routes to it.
     */
    public Session open(UUID mnId, long epoch, Function<Session, NodeLink> linkFactory) {
        Session existing = sessions.get(mnId);
        if (existing != null) {
            if (existing.epoch >= epoch) {
                throw new IllegalStateException(mnId + " has epoch " + existing.epoch + " here, not below " + epoch);
            }
            close(existing, "replaced", UnsentMessage.Reason.SESSION_REPLACED);
        }
        Session session = new Session(mnId, epoch, linkFactory, nowMs());
        sessions.put(mnId, session);
        metrics.sessions.inc();
        metrics.connects.inc();
        admission.opening();
        publisher.event(MnEvent.connected(mnId.toString(), config.gatewayId(), epoch, System.currentTimeMillis()))
                .whenComplete((ok, error) -> loop.execute(() -> {
                    admission.opened();
                    if (sessions.get(mnId) != session) {
                        return;
                    }
                    if (error == null) {
                        session.announced = true;
                        if (session.leavingDeadlineMs == 0) {
                            serving++;
                        }
                        session.link.accepted(config.gatewayId(), config.maxPayloadBytes());
                        if (!gatewayList.isEmpty()) {
                            session.link.gatewayList(gatewayList);
                        }
                    } else {
                        forget(session); // the node retries its connect
                    }
                }));
        return session;
    }

    /** Any valid frame from the node: it is alive. */
    public void heard(Session session) {
        session.lastHeardMs = nowMs();
    }

    /**
     * A message or groupcast from the node, handed over by the adapter under {@code ref}. It counts
     * as accepted once it is in Kafka: then, and only then, the adapter acknowledges it.
     */
    public void uplink(Session session, int ref, Uplink uplink) {
        if (uplink.payload().length > config.maxPayloadBytes()) {
            reject(session, ref, Refusal.PAYLOAD_TOO_LARGE,
                    "payload of " + uplink.payload().length + " bytes exceeds " + config.maxPayloadBytes());
            return;
        }
        if (!uplinkAdmission.admit(ThreadLocalRandom.current().nextDouble())) {
            reject(session, ref, Refusal.BUSY, "the core is behind: try again later");
            return;
        }
        String mnId = session.mnId.toString();
        long now = System.currentTimeMillis();
        if (uplink instanceof Uplink.ToGroup groupcast) {
            if (!Topics.isValidGroup(groupcast.group())) {
                reject(session, ref, Refusal.MALFORMED, "group '" + groupcast.group() + "' is not <definerId>/<name>");
                return;
            }
            reportContext(session, groupcast.context(), now);
            acknowledgeOnceWritten(session, ref, metrics.groupcastsIn, publisher.groupcast(new Groupcast(
                    groupcast.messageId().toString(), mnId, groupcast.group(), groupcast.payload(), groupcast.ttlMs(),
                    now, false)));
            return;
        }
        Uplink.ToChannel message = (Uplink.ToChannel) uplink;
        if (!Topics.isValidChannel(message.channel())) {
            reject(session, ref, Refusal.FORBIDDEN_CHANNEL, "invalid channel name '" + message.channel() + "'");
            return;
        }
        if (!publisher.channelExists(message.channel())) {
            reject(session, ref, Refusal.UNKNOWN_CHANNEL, "no topic " + topics.app(message.channel()));
            return;
        }
        reportContext(session, message.context(), now);
        acknowledgeOnceWritten(session, ref, metrics.messagesIn,
                publisher.appMessage(new AppMessage(message.messageId().toString(), mnId, config.gatewayId(),
                        message.channel(), message.payload(), message.context(), now)));
    }

    /** Refuses an uplink message: counted, and the node is told why. */
    public void reject(Session session, int ref, Refusal refusal, String message) {
        metrics.rejected.labelValues(refusal.name()).inc();
        session.link.reject(ref, refusal, message);
    }

    /** The node acknowledged a delivery: a receipt if the sender asked, and the mini-buffer keeps it. */
    public void delivered(Session session, UUID deliveryId) {
        metrics.messagesOut.inc();
        Unicast unicast = session.unacknowledged.remove(deliveryId);
        if (unicast == null) {
            return;
        }
        downlinkOpen--;
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

    /** The node acknowledged a handover: it is on its way; after a grace its session closes here anyway. */
    public void leaving(Session session) {
        if (session.leavingDeadlineMs == 0) {
            if (session.announced) {
                serving--;
            }
            session.leavingDeadlineMs = nowMs() + HANDOVER_GRACE_MS;
        }
    }

    /** The node answered a ping of the current window; a late or foreign pong is counted and dropped. */
    public void pong(Session session, long timestamp) {
        long now = System.nanoTime();
        if (window == null || !window.onPong(session.mnId, timestamp, now)) {
            metrics.latePongs.inc();
        } else {
            metrics.pingRoundTrip.observe(window.roundTripNanos(session.mnId, now) / 1e9);
        }
    }

    /** The node closed its session on purpose. */
    public void disconnect(Session session) {
        close(session, "disconnect", UnsentMessage.Reason.CONNECTION_BROKEN);
    }

    /**
     * The connection failed (the link gave up retrying, or the node fell silent). With the mini-buffer
     * on, the last two acknowledged unicasts go to ckc.unsent as well: the paper's guarantee of at
     * least once even if an acknowledgement lied; the node drops the duplicates by message id.
     */
    public void fail(Session session, String why) {
        if (config.miniBuffer() && sessions.get(session.mnId) == session) {
            for (Unicast unicast : session.recentlyAcknowledged) {
                unsent(unicast, session.epoch, UnsentMessage.Reason.CONNECTION_BROKEN);
            }
            session.recentlyAcknowledged.clear();
        }
        close(session, why, UnsentMessage.Reason.CONNECTION_BROKEN);
    }

    // ---------------------------------------------------------------------------------------------
    // called by the core, on the loop

    /** A unicast routed by the delivery job to a session of this shard. */
    void deliver(UUID mnId, Unicast unicast, long routedEpoch, Long expiresAt) {
        if (expiresAt != null && System.currentTimeMillis() >= expiresAt) {
            unsent(unicast, routedEpoch, UnsentMessage.Reason.EXPIRED); // the delivery job counts it and tells the sender
            return;
        }
        Session session = sessions.get(mnId);
        if (session == null) {
            unsent(unicast, routedEpoch, UnsentMessage.Reason.NOT_CONNECTED);
            return;
        }
        // A session not yet announced still takes it: the node reads it once its connect is acknowledged.
        UUID deliveryId = deliveryIdOf(unicast.messageId());
        if (session.unacknowledged.put(deliveryId, unicast) == null) {
            downlinkOpen++;
        }
        session.link.deliver(deliveryId, unicast.sender(), unicast.payload());
    }

    /** Every node announced here now gets the broadcast, as a unicast on its session. */
    void broadcast(Broadcast broadcast) {
        for (Session session : new ArrayList<>(sessions.values())) {
            if (session.announced) {
                metrics.broadcasts.inc();
                deliver(session.mnId, broadcast.toNode(session.mnId.toString()), session.epoch, broadcast.expiresAt());
            }
        }
    }

    /** A changed gateway list, forwarded to every announced node; new sessions get it when announced. */
    void gatewayList(List<GatewayEndpoints> addresses) {
        gatewayList = addresses;
        for (Session session : sessions.values()) {
            if (session.announced) {
                session.link.gatewayList(addresses);
            }
        }
    }

    void handOver(UUID mnId, GatewayEndpoints target) {
        Session session = sessions.get(mnId);
        if (session == null || target.gatewayId().equals(config.gatewayId())) {
            metrics.handovers.labelValues("ignored").inc();
            return;
        }
        // A target that does not serve the node's protocol cannot take it: the node stays.
        metrics.handovers.labelValues(session.link.handover(target) ? "forwarded" : "no-endpoint").inc();
    }

    /**
     * Opens this shard's share of a ping window and pings, paced, its serving nodes: all of them, or
     * a uniform random sample of {@code maxPinged} when there are more. The window's statistics (latency,
     * share answered) are estimates from the sample either way; what pinging every node would add is
     * two datagrams per node per window, the largest idle cost of a gateway and its nodes.
     */
    void openWindow(long sentAtMicros, long startNanos, long windowMs, int maxPinged) {
        PingWindow opened = new PingWindow(sentAtMicros, startNanos, windowMs);
        window = opened;
        double share = serving <= maxPinged ? 1.0 : (double) maxPinged / serving;
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<Session> pinged = new ArrayList<>(Math.min(sessions.size(), maxPinged + maxPinged / 8 + 16));
        for (Session session : sessions.values()) {
            if (session.isServing() && (share >= 1.0 || random.nextDouble() < share)) {
                pinged.add(session);
            }
        }
        long slices = Math.max(1, windowMs / 2 / PING_SLICE_MS);
        int perSlice = (int) Math.max(PING_BURST, (pinged.size() + slices - 1) / slices);
        pingSlice(opened, pinged, 0, perSlice);
    }

    /** Pings {@code pinged[from, from + perSlice)} still here, then schedules the next slice. */
    private void pingSlice(PingWindow opened, List<Session> pinged, int from, int perSlice) {
        if (window != opened) {
            return;
        }
        int to = Math.min(pinged.size(), from + perSlice);
        long now = System.nanoTime();
        for (int i = from; i < to; i++) {
            Session session = pinged.get(i);
            if (session.isServing() && sessions.get(session.mnId) == session) {
                opened.pinged(session.mnId, now);
                session.link.ping(opened.sentAtMicros());
            }
        }
        if (to < pinged.size()) {
            loop.schedule(() -> pingSlice(opened, pinged, to, perSlice), PING_SLICE_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** Closes this shard's share of the window: the serving nodes now, and what they answered. */
    PingWindow.Part closeWindow(long sentAtMicros) {
        List<UUID> connected = new ArrayList<>(sessions.size());
        for (Session session : sessions.values()) {
            if (session.isServing()) {
                connected.add(session.mnId);
            }
        }
        PingWindow closing = window;
        if (closing == null || closing.sentAtMicros() != sentAtMicros) {
            return new PingWindow.Part(connected, Map.of(), Map.of()); // this shard never opened it, or a newer one
        }
        window = null;
        return closing.closePart(connected);
    }

    /** Nodes serving here now: announced and not leaving after a handover. Any thread. */
    int serving() {
        return serving;
    }

    /** Closes every session: the gateway stops. Their Disconnected events and unsent deliveries are published. */
    void closeAll() {
        if (sweep != null) {
            sweep.cancel(false);
        }
        window = null;
        for (Session session : new ArrayList<>(sessions.values())) {
            close(session, "gateway-stopped", UnsentMessage.Reason.CONNECTION_BROKEN);
        }
    }

    // ---------------------------------------------------------------------------------------------

    /**
     * Ends the sessions that timed out and those of nodes handed over whose time to leave has come.
     * Why only those are collected, not a copy of every session taken to iterate: this runs every
     * second over every session of the shard, and that copy ({@code HashMap.valuesToArray}) was 5.2% of
     * an idle gateway's CPU samples at 90,000 nodes.
     */
    void sweep() {
        long now = nowMs();
        long cutoff = now - config.sessionTimeoutMs();
        List<Session> due = null;
        for (Session session : sessions.values()) {
            if (session.lastHeardMs < cutoff || (session.leavingDeadlineMs != 0 && now >= session.leavingDeadlineMs)) {
                if (due == null) {
                    due = new ArrayList<>();
                }
                due.add(session);
            }
        }
        if (due == null) {
            return;
        }
        for (Session session : due) {
            if (session.lastHeardMs < cutoff) {
                fail(session, "timeout");
            } else {
                close(session, "handed-over", UnsentMessage.Reason.CONNECTION_BROKEN);
            }
        }
    }

    /** The node's context to ckc.context, when {@link ContextRefresh} says it is due. */
    private void reportContext(Session session, Context context, long now) {
        if (context == null) {
            return;
        }
        long shardNow = nowMs();
        if (!contextRefresh.due(context, session.reportedContext, session.reportedContextMs, shardNow)) {
            metrics.contextUnchanged.inc();
            return;
        }
        session.reportedContext = context;
        session.reportedContextMs = shardNow;
        publisher.context(new ContextReport(session.mnId.toString(), config.gatewayId(), now, context));
    }

    private void acknowledgeOnceWritten(Session session, int ref, Counter accepted, CompletionStage<Void> written) {
        written.whenComplete((ok, error) -> loop.execute(() -> {
            if (error == null) {
                accepted.inc();
                session.link.acknowledge(ref);
            } else {
                reject(session, ref, Refusal.PUBLISH_FAILED, "core unavailable: " + error.getMessage());
            }
        }));
    }

    private void close(Session session, String why, UnsentMessage.Reason unsentReason) {
        if (!forget(session)) {
            return;
        }
        metrics.disconnects.labelValues(why).inc();
        downlinkOpen -= session.unacknowledged.size();
        publisher.event(MnEvent.disconnected(session.mnId.toString(), config.gatewayId(), session.epoch,
                System.currentTimeMillis()));
        for (UUID deliveryId : session.link.close()) {
            Unicast unicast = session.unacknowledged.remove(deliveryId);
            if (unicast != null) {
                unsent(unicast, session.epoch, unsentReason);
            }
        }
        for (Unicast unicast : session.unacknowledged.values()) { // taken by the core, never sent by the link
            unsent(unicast, session.epoch, unsentReason);
        }
        session.unacknowledged.clear();
        LOG.debug("Session {} epoch {} closed: {}", session.mnId, session.epoch, why);
    }

    private boolean forget(Session session) {
        if (!sessions.remove(session.mnId, session)) {
            return false;
        }
        if (session.isServing()) {
            serving--;
        }
        metrics.sessions.dec();
        return true;
    }

    private void unsent(Unicast unicast, long epoch, UnsentMessage.Reason reason) {
        metrics.unsent.labelValues(reason.name()).inc();
        publisher.unsent(new UnsentMessage(unicast, config.gatewayId(), epoch, reason, System.currentTimeMillis()));
    }

    /** Message ids are UUIDs on the wire; any other id maps to a stable name-based UUID, so MNs still dedupe. */
    static UUID deliveryIdOf(String messageId) {
        try {
            return UUID.fromString(messageId);
        } catch (IllegalArgumentException e) {
            return UUID.nameUUIDFromBytes(messageId.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The gateway's clock for timeouts and deadlines, in ms: monotonic, not wall time. */
    public static long nowMs() {
        return System.nanoTime() / 1_000_000;
    }
}
