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
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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
    /** What each node's credential grants it; everything in the insecure mode. */
    private final java.util.function.Function<java.util.UUID, Grants> grantsOf;
    private final Set<UdpLink> inFlight = new LinkedHashSet<>();
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

    UdpShard(SessionShard core, ReliabilityConfig reliability, GatewayMetrics metrics,
             java.util.function.Function<java.util.UUID, Grants> grantsOf) {
        this.grantsOf = grantsOf;
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
            if (link.reliable.onRefused(error.seq(), SessionShard.nowMs(), false) instanceof Body.Delivery delivery) {
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
        core.open(connect.mnId(), connect.epoch(), grantsOf.apply(connect.mnId()),
                session -> new UdpLink(session, this, peer, reliability));
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

    void retransmitting(UdpLink link) {
        inFlight.add(link);
    }

    void stopRetransmitting(UdpLink link) {
        inFlight.remove(link);
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
        if (inFlight.isEmpty()) {
            return;
        }
        long now = SessionShard.nowMs();
        List<UdpLink> broken = null;
        for (Iterator<UdpLink> it = inFlight.iterator(); it.hasNext(); ) {
            UdpLink link = it.next();
            long before = link.reliable.retransmissions();
            ReliableSession.TickResult result = link.reliable.tick(now);
            long resent = link.reliable.retransmissions() - before;
            if (resent > 0) {
                metrics.retransmissions.inc(resent);
            }
            if (result == ReliableSession.TickResult.BROKEN) {
                it.remove();
                if (broken == null) {
                    broken = new ArrayList<>();
                }
                broken.add(link);
            } else if (result == ReliableSession.TickResult.IDLE && !link.reliable.hasInFlight()) {
                it.remove();
            }
        }
        if (broken != null) {
            for (UdpLink link : broken) {
                core.fail(link.session, "broken");
            }
        }
    }

    void send(Frame frame, InetSocketAddress peer) {
        out.send(frame, peer);
    }

}
