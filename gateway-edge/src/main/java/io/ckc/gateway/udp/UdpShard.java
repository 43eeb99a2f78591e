package io.ckc.gateway.udp;

import io.ckc.protocol.auth.Grants;
import io.ckc.gateway.core.ConnectAnswer;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.gateway.core.Refusal;
import io.ckc.gateway.core.Session;
import io.ckc.gateway.core.SessionShard;
import io.ckc.gateway.core.Uplink;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.frame.GatewayAddress;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.mrudp.CongestionWindow;
import io.ckc.protocol.mrudp.ReliabilityConfig;
import io.ckc.protocol.mrudp.ReliableSession;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.netty.AddressedFrame;
import io.ckc.protocol.netty.FrameWriter;
import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The reliable-UDP adapter's side of one core shard, on that shard's event loop: turns each frame of
 * the shard's nodes into a call on the core, sends frames out on the shard's socket, and retransmits
 * what the nodes have not acknowledged.
 */
final class UdpShard {

    private static final Logger LOG = LoggerFactory.getLogger(UdpShard.class);
    static final String ADDRESS_RATE_MESSAGE = "too many new sessions from your address: try again later";
    /** Retransmission timers are checked this often; well below the smallest retransmission timeout. */
    static final long TICK_MS = 10;

    final SessionShard core;
    private final ReliabilityConfig reliability;
    private final GatewayMetrics metrics;
    /** Each node's id as its handshake authenticated it, and what its credential grants it; everything in the insecure mode. */
    private final Function<UUID, NodeRights> rightsOf;
    /**
     * When each link with frames in flight is looked at next, earliest first: a link is looked at when a frame of its
     * may be due for retransmission, not at every tick. An entry is stale once its link was scheduled earlier, looked
     * at, or closed ({@link UdpLink#lookAtMs}). Why: every tick (100 a second) looked at every link with anything in
     * flight, and a groupcast to 100,000 members puts a frame in flight on every one of their links: a third of a
     * gateway's CPU went to that walk (JFR, 2026-11-28), its sockets overflowed, and nodes gave their sessions up.
     */
    private final PriorityQueue<LookAt> lookAts = new PriorityQueue<>(Comparator.comparingLong(LookAt::atMs));
    /** Links with frames queued for room in the socket's congestion window, served in turn as it has room. */
    private final ArrayDeque<UdpLink> waitingForWindow = new ArrayDeque<>();
    /** Bounds the deliveries all nodes of this shard's socket have unacknowledged. */
    final CongestionWindow window = CongestionWindow.forSocket();
    private FrameWriter out;
    private ScheduledFuture<?> ticks;
    /** Ticks since the window's gauges were last set; they are set once a second. */
    private int ticksSinceGauges;
    private long reductionsCounted;

    /** The last gateway list the core forwarded, and the same in this protocol's terms: one list for every link. */
    private List<GatewayEndpoints> gatewayList = List.of();
    private List<GatewayAddress> udpGatewayList = List.of();

    /**
     * A node a session may be opened for: its id, the very object its handshake's identity holds (the session keeps
     * that one, not a second copy from the Connect frame: 32 bytes a node), and what its credential grants it.
     */
    record NodeRights(UUID node, Grants grants) {

        /** The insecure mode's: nothing authenticated, everything granted. */
        static final Function<UUID, NodeRights> INSECURE = node -> new NodeRights(node, Grants.ALL);
    }

    UdpShard(SessionShard core, ReliabilityConfig reliability, GatewayMetrics metrics, Function<UUID, NodeRights> rightsOf) {
        this.rightsOf = rightsOf;
        this.core = core;
        this.reliability = reliability;
        this.metrics = metrics;
    }

    /** The socket this shard's frames leave by; starts the retransmission timer. */
    void bind(Channel channel) {
        out = new FrameWriter(channel);
        ticks = core.loop().scheduleAtFixedRate(this::retransmit, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
    }

    void stop() {
        if (ticks != null) {
            ticks.cancel(false);
        }
    }

    /** One frame of a node of this shard, on the shard's loop. */
    void onFrame(AddressedFrame in) {
        Frame frame = in.frame();
        if (frame instanceof Frame.Connect connect) {
            onConnect(connect, in.peer());
            return;
        }
        Session session = core.find(frame.mnId(), frame.epoch());
        if (session == null || !(session.link() instanceof UdpLink link)) {
            if (!(frame instanceof Frame.Error) && !(frame instanceof Frame.Disconnect)) {
                int seq = frame instanceof Frame.Data data ? data.seq() : 0;
                send(new Frame.Error(frame.mnId(), frame.epoch(), ErrorCode.UNKNOWN_SESSION, seq,
                        "no session with this epoch; connect again"), in.peer());
            }
            return;
        }
        link.follow(in.peer());
        core.heard(session);
        link.reliable.heard(SessionShard.nowMs());
        if (frame instanceof Frame.Data data) {
            for (ReliableSession.Received received : link.reliable.onData(data.seq(), data.body())) {
                if (received.body() instanceof Body.MnMessage message) {
                    core.uplink(session, received.seq(), new Uplink.ToChannel(message.messageId(), message.channel(),
                            message.context(), message.payload()));
                } else if (received.body() instanceof Body.MnGroupcast groupcast) {
                    core.uplink(session, received.seq(), new Uplink.ToGroup(groupcast.messageId(), groupcast.group(),
                            groupcast.context(), groupcast.payload(), null));
                } else {
                    core.reject(session, received.seq(), Refusal.MALFORMED,
                            "a mobile node may only send messages and groupcasts");
                }
            }
        } else if (frame instanceof Frame.Ack ack) {
            Body acked = link.reliable.onAck(ack.seq(), SessionShard.nowMs());
            retransmitting(link); // the ack made room: what was queued may have left
            if (acked instanceof Body.Delivery delivery) {
                core.delivered(session, delivery.messageId());
            } else if (acked instanceof Body.Handover) {
                core.leaving(session);
            }
        } else if (frame instanceof Frame.Ping ping) {
            send(new Frame.Pong(ping.mnId(), ping.epoch(), ping.timestamp()), in.peer());
        } else if (frame instanceof Frame.Pong pong) {
            core.pong(session, pong.timestamp());
        } else if (frame instanceof Frame.Disconnect) {
            core.disconnect(session);
        } else if (frame instanceof Frame.Error error && error.code() == ErrorCode.EXPIRED && error.seq() > 0) {
            Body refused = link.reliable.onRefused(error.seq(), SessionShard.nowMs(), false);
            retransmitting(link);
            if (refused instanceof Body.Delivery delivery) {
                core.expired(session, delivery.messageId());
            }
        } else if (frame instanceof Frame.Error error) {
            LOG.debug("MN {} reported {}: {}", frame.mnId(), error.code(), error.message());
        }
        // ConnectAck from an MN is meaningless and ignored.
    }

    private void onConnect(Frame.Connect connect, InetSocketAddress peer) {
        Session existing = core.current(connect.mnId());
        if (existing != null && existing.epoch() == connect.epoch()) {
            if (existing.link() instanceof UdpLink link) {
                link.follow(peer);
                core.heard(existing);
                if (existing.announced()) {
                    link.accepted(core.options().gatewayId(), core.options().maxPayloadBytes()); // our first ack was lost
                }
            }
            return;
        }
        if (existing != null && existing.epoch() > connect.epoch()) {
            send(new Frame.Error(connect.mnId(), connect.epoch(), ErrorCode.STALE_EPOCH, 0, "a newer session exists"),
                    peer);
            return;
        }
        // the address's share was taken where the datagram was read (UdpFrameHandler)
        ConnectAnswer answer = core.admit(connect.mnId(), null);
        if (answer != ConnectAnswer.ADMITTED) {
            send(new Frame.Error(connect.mnId(), connect.epoch(), ErrorCode.BUSY, 0, answer == ConnectAnswer.FLAPPING
                    ? "too many sessions of this node lately: try again later" : "gateway busy: try again later"), peer);
            return;
        }
        NodeRights rights = rightsOf.apply(connect.mnId());
        core.open(rights.node(), connect.epoch(), rights.grants(), session -> new UdpLink(session, this, peer, reliability));
    }

    /**
     * The gateways of a list the core forwards that nodes reach over UDP, as frames name them. Why kept:
     * the core hands every session the same list, so it is translated once, not once per node.
     */
    List<GatewayAddress> udpGateways(List<GatewayEndpoints> gateways) {
        if (gateways != gatewayList) {
            gatewayList = gateways;
            udpGatewayList = gateways.stream().map(UdpShard::udpAddress).flatMap(Optional::stream).toList();
        }
        return udpGatewayList;
    }

    /** Where a gateway takes reliable-UDP nodes, if it does. */
    static Optional<GatewayAddress> udpAddress(GatewayEndpoints gateway) {
        return gateway.endpoint(Endpoint.UDP).map(e -> new GatewayAddress(gateway.gatewayId(), e.host(), e.port()));
    }

    private record LookAt(long atMs, UdpLink link) {
    }

    /** The link sent, or was answered: it is looked at by its next retransmission deadline, and queued for room. */
    void retransmitting(UdpLink link) {
        long at = link.reliable.nextDeadline();
        if (at < link.lookAtMs) {
            link.lookAtMs = at;
            lookAts.add(new LookAt(at, link));
        }
        if (!link.waitingForWindow && link.reliable.queued() > 0) {
            link.waitingForWindow = true;
            waitingForWindow.add(link);
        }
    }

    /** The link closed: its entries are dropped when they come up. */
    void stopRetransmitting(UdpLink link) {
        link.lookAtMs = Long.MAX_VALUE;
    }

    /** Retransmits what is due; a link that ran out of retries fails its session. */
    private void retransmit() {
        if (++ticksSinceGauges * TICK_MS >= 1_000) {
            ticksSinceGauges = 0;
            String shard = String.valueOf(core.index());
            metrics.downlinkWindow.labelValues(shard, "limit").set(window.limit());
            metrics.downlinkWindow.labelValues(shard, "in_flight").set(window.inFlight());
            metrics.downlinkWindowReductions.inc(window.reductions() - reductionsCounted);
            reductionsCounted = window.reductions();
        }
        long now = SessionShard.nowMs();
        List<UdpLink> broken = new ArrayList<>(0);
        while (!lookAts.isEmpty() && lookAts.peek().atMs() <= now) {
            LookAt next = lookAts.poll();
            UdpLink link = next.link();
            if (next.atMs() == link.lookAtMs && !link.closed()) {
                link.lookAtMs = Long.MAX_VALUE;
                tick(link, now, broken);
            }
        }
        for (int turns = waitingForWindow.size(); turns > 0 && window.inFlight() < window.limit(); turns--) {
            UdpLink link = waitingForWindow.poll();
            link.waitingForWindow = false;
            if (!link.closed()) {
                tick(link, now, broken); // sends what the window has room for; still waiting, it goes to the back
            }
        }
        for (UdpLink link : broken) {
            core.fail(link.session, "broken");
        }
    }

    private void tick(UdpLink link, long now, List<UdpLink> broken) {
        long before = link.reliable.retransmissions();
        ReliableSession.TickResult result = link.reliable.tick(now);
        long resent = link.reliable.retransmissions() - before;
        if (resent > 0) {
            metrics.retransmissions.inc(resent);
        }
        if (result == ReliableSession.TickResult.BROKEN) {
            broken.add(link);
        } else {
            retransmitting(link);
        }
    }

    void send(Frame frame, InetSocketAddress peer) {
        out.send(frame, peer);
    }

}
