package io.ckc.gateway.core;

import io.ckc.protocol.auth.Grants;
import io.ckc.protocol.records.Broadcast;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import io.github.bucket4j.TimeMeter;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The sessions of the nodes whose ids hash to this shard, whatever protocol carries them: admitting
 * and opening a session once the core knows where the node is, handover and the gateway list, idle
 * timeouts and the close. What the gateway does on a session is in its parts: {@link ShardUplink},
 * {@link ShardDownlink}, {@link ShardPings}. Everything runs on the shard's one event loop, so nothing
 * here takes a lock; a protocol adapter calls in on that loop ({@link #inLoop()}, {@link #execute}).
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
    private final int index;
    private final EventLoop loop;
    private final CoreOptions config;
    private final CorePublisher publisher;
    private final GatewayMetrics metrics;
    private final ShardSessions sessions = new ShardSessions();
    /** When each session times out unless heard from: looked at once per timeout, not at every sweep. */
    private final Deadlines<Session> timeouts = new Deadlines<>(this::timesOutAt,
            session -> sessions.get(session.mnId) == session);
    /** Sessions of nodes that acknowledged a handover: closed here at their leaving deadline. */
    private final List<Session> leaving = new ArrayList<>();
    private final ConnectAdmission admission;
    private final AddressLimits addressLimits;
    private final NodeLimits nodeLimits;
    private final ShardUplink uplink;
    private final ShardDownlink downlink;
    private final ShardPings pings;
    private List<GatewayEndpoints> gatewayList = List.of();
    private ScheduledFuture<?> sweep;
    /** Sessions announced and not leaving: what the load report counts. Written on the loop, read by the reporter. */
    private volatile int serving;

    SessionShard(int index, int shardCount, EventLoop loop, CoreOptions config, CorePublisher publisher,
                 GatewayMetrics metrics, UplinkAdmission uplinkAdmission, AddressLimits addressLimits) {
        this.index = index;
        this.loop = loop;
        this.config = config;
        this.publisher = publisher;
        this.metrics = metrics;
        this.admission = new ConnectAdmission(config.admitPerSecond(), shardCount, config.admitPending(), CLOCK);
        this.addressLimits = addressLimits;
        this.nodeLimits = new NodeLimits(config.limits(), config.maxPayloadBytes(), CLOCK);
        this.uplink = new ShardUplink(config, publisher, metrics, uplinkAdmission, nodeLimits, loop);
        this.downlink = new ShardDownlink(config, publisher, metrics, loop);
        this.pings = new ShardPings(loop, metrics, sessions);
    }

    /** Deliveries this shard took and its nodes have not acknowledged yet; read from any thread. */
    public int downlinkOpen() {
        return downlink.open();
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
        sweep = loop.scheduleAtFixedRate(() -> sweep(nowMs()), SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
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
     * Whether the node may open a new session now, coming from {@code source} (null if its protocol has no address):
     * not while it is refused for flapping, nor beyond its address's share ({@link AddressLimits}), nor beyond the
     * gateway's admission ({@link ConnectAdmission}). A refusal is counted by reason; the adapter tells the node,
     * which tries again later.
     */
    public ConnectAnswer admit(UUID mnId, InetAddress source) {
        ConnectAnswer answer = nodeLimits.flapping(mnId, nowMs()) ? ConnectAnswer.FLAPPING
                : !addressLimits.open(source) ? ConnectAnswer.ADDRESS_RATE
                : !admission.admit() ? ConnectAnswer.BUSY
                : ConnectAnswer.ADMITTED;
        if (answer != ConnectAnswer.ADMITTED) {
            metrics.connectsRefused.labelValues(answer.label()).inc();
        }
        return answer;
    }

    /**
     * Opens a session with a higher epoch than any the node has here (the adapter checks with
     * {@link #current}); an older session of the node is closed as replaced. The node is told it is
     * connected ({@link NodeLink#accepted}) only once its Connected event is in Kafka: from then on
     * the core routes to it.
     */
    public Session open(UUID mnId, long epoch, Grants grants, Function<Session, NodeLink> linkFactory) {
        Session existing = sessions.get(mnId);
        if (existing != null) {
            if (existing.epoch >= epoch) {
                throw new IllegalStateException(mnId + " has epoch " + existing.epoch + " here, not below " + epoch);
            }
            close(existing, "replaced", UnsentMessage.Reason.SESSION_REPLACED);
        }
        Session session = new Session(mnId, epoch, grants, linkFactory, nowMs());
        sessions.put(session);
        timeouts.add(session, nowMs());
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
                        if (nodeLimits.announced(mnId, nowMs())) {
                            metrics.flappingNodes.inc();
                        }
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
     * as accepted once it is in Kafka: then, and only then, the adapter acknowledges it ({@link ShardUplink}).
     */
    public void uplink(Session session, int ref, Uplink uplink) {
        this.uplink.uplink(session, ref, uplink);
    }

    /** The node's context, reported apart from a message (to ckc.context when it changed or a refresh is due). */
    public void context(Session session, Context context) {
        uplink.context(session, context);
    }

    /** Refuses an uplink message: counted, and the node is told why. */
    public void reject(Session session, int ref, Refusal refusal, String message) {
        uplink.reject(session, ref, refusal, message);
    }

    /** The link can never send this delivery to the node: dropped, and its sender told why ({@link ShardDownlink}). */
    public void undeliverable(Session session, UUID deliveryId, String detail) {
        downlink.undeliverable(session, deliveryId, detail);
    }

    /** The node acknowledged a delivery ({@link ShardDownlink}). */
    public void delivered(Session session, UUID deliveryId) {
        downlink.acknowledged(session, deliveryId);
    }

    /** The node never had a delivery, and its deadline passed: it goes back to the delivery job as expired. */
    public void expired(Session session, UUID deliveryId) {
        downlink.expired(session, deliveryId, false);
    }

    /**
     * A delivery handed over already past its deadline (the delivery job's question: it was in flight on an earlier
     * session, whose acknowledgement may be what was lost) that the link cannot ask the node about, as a reliable-UDP
     * link does: it goes back as expired, flagged as one that may have arrived, so its sender hears so.
     */
    public void expiredUnasked(Session session, UUID deliveryId) {
        downlink.expired(session, deliveryId, true);
    }

    /** The node acknowledged a handover: it is on its way; after a grace its session closes here anyway. */
    public void leaving(Session session) {
        if (session.leavingDeadlineMs == 0) {
            if (session.announced) {
                serving--;
            }
            session.leavingDeadlineMs = nowMs() + HANDOVER_GRACE_MS;
            leaving.add(session);
        }
    }

    /** The node answered a ping of the current window; a late or foreign pong is counted and dropped. */
    public void pong(Session session, long timestamp) {
        pings.pong(session, timestamp);
    }

    /** The node closed its session on purpose. */
    public void disconnect(Session session) {
        close(session, "disconnect", UnsentMessage.Reason.CONNECTION_BROKEN);
    }

    /**
     * The connection failed (the link gave up retrying, or the node fell silent): with the mini-buffer
     * on, the last deliveries it acknowledged go back to the core as well ({@link ShardDownlink}).
     */
    public void fail(Session session, String why) {
        if (sessions.get(session.mnId) == session) {
            downlink.connectionFailed(session);
        }
        close(session, why, UnsentMessage.Reason.CONNECTION_BROKEN);
    }

    // ---------------------------------------------------------------------------------------------
    // called by the core, on the loop

    /** A unicast routed by the delivery job to a node whose id hashes to this shard. */
    void deliver(UUID mnId, Unicast unicast, long routedEpoch, Long expiresAt) {
        downlink.deliver(sessions.get(mnId), unicast, routedEpoch, expiresAt, true);
    }

    /** Every node announced here now gets the broadcast, as a unicast on its session. */
    void broadcast(Broadcast broadcast) {
        for (Session session : new ArrayList<>(sessions.values())) {
            if (session.announced) {
                metrics.broadcasts.inc();
                downlink.deliver(session, broadcast.toNode(session.mnId.toString()), session.epoch, broadcast.expiresAt(),
                        false);
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

    /** Opens this shard's share of a ping window and pings its serving nodes, or a sample of them ({@link ShardPings}). */
    void openWindow(long sentAtMicros, long startNanos, long windowMs, int maxPinged) {
        pings.open(sentAtMicros, startNanos, windowMs, maxPinged);
    }

    /** Closes this shard's share of the window: the serving nodes now (listed or counted), and what they answered. */
    PingWindow.Part closeWindow(long sentAtMicros, boolean listed) {
        return pings.close(sentAtMicros, listed, serving);
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
        pings.stop();
        for (Session session : new ArrayList<>(sessions.values())) {
            close(session, "gateway-stopped", UnsentMessage.Reason.CONNECTION_BROKEN);
        }
    }

    // ---------------------------------------------------------------------------------------------

    /**
     * Ends the sessions that timed out and those of nodes handed over whose time to leave has come. Why neither is a
     * walk over every session: this runs every second, and walking them all (the sessions here and the DTLS peers of
     * the sockets) was about a sixth of a core for a gateway holding 300,000 idle nodes; the timeouts come from a timer
     * wheel ({@link Deadlines}), the leaving sessions from their own list.
     */
    void sweep(long now) {
        nodeLimits.sweep(now);
        for (Session session : timeouts.due(now)) {
            fail(session, "timeout");
        }
        if (leaving.isEmpty()) {
            return;
        }
        List<Session> due = null;
        for (Iterator<Session> it = leaving.iterator(); it.hasNext(); ) {
            Session session = it.next();
            if (sessions.get(session.mnId) != session) {
                it.remove();
            } else if (now >= session.leavingDeadlineMs) {
                it.remove();
                if (due == null) {
                    due = new ArrayList<>();
                }
                due.add(session);
            }
        }
        if (due != null) {
            for (Session session : due) {
                close(session, "handed-over", UnsentMessage.Reason.CONNECTION_BROKEN);
            }
        }
    }

    /** When the session times out unless heard from again; never for a link that watches its own liveness (MQTT). */
    private long timesOutAt(Session session) {
        return session.link.watchesLiveness() ? Long.MAX_VALUE : session.lastHeardMs + config.sessionTimeoutMs();
    }

    private void close(Session session, String why, UnsentMessage.Reason unsentReason) {
        if (!forget(session)) {
            return;
        }
        metrics.disconnects.labelValues(why).inc();
        publisher.event(MnEvent.disconnected(session.mnId.toString(), config.gatewayId(), session.epoch,
                System.currentTimeMillis()));
        downlink.closed(session, unsentReason);
        LOG.debug("Session {} epoch {} closed: {}", session.mnId, session.epoch, why);
    }

    private boolean forget(Session session) {
        if (!sessions.remove(session)) {
            return false;
        }
        if (session.isServing()) {
            serving--;
        }
        metrics.sessions.dec();
        return true;
    }

    /** The gateway's clock for its token buckets: {@link #nowMs()}'s. */
    static final TimeMeter CLOCK = TimeMeter.SYSTEM_NANOTIME;

    /** Nodes the shard's per-node limits remember now (flapping windows): for tests that prove the state goes away. */
    int limitedNodesRemembered() {
        return nodeLimits.remembered();
    }

    /** The gateway's clock for timeouts and deadlines, in ms: monotonic, not wall time. */
    public static long nowMs() {
        return System.nanoTime() / 1_000_000;
    }
}
