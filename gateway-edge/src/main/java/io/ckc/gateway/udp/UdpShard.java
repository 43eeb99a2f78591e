package io.ckc.gateway.udp;

import io.ckc.gateway.GatewayConfig;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.gateway.core.Session;
import io.ckc.gateway.core.SessionShard;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.mrudp.CongestionWindow;
import io.ckc.protocol.mrudp.ReliableSession;
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
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The reliable-UDP adapter's side of one core shard, on that shard's event loop: turns each frame of
 * the shard's nodes into a call on the core, sends frames out on the shard's socket, and retransmits
 * what the nodes have not acknowledged.
 */
final class UdpShard {

    private static final Logger LOG = LoggerFactory.getLogger(UdpShard.class);
    /** Retransmission timers are checked this often; well below the smallest retransmission timeout. */
    static final long TICK_MS = 10;

    final SessionShard core;
    private final GatewayConfig config;
    private final GatewayMetrics metrics;
    private final Set<UdpLink> inFlight = new LinkedHashSet<>();
    /** Bounds the deliveries all nodes of this shard's socket have unacknowledged. */
    final CongestionWindow window = CongestionWindow.forSocket();
    private FrameWriter out;
    private ScheduledFuture<?> ticks;

    UdpShard(SessionShard core, GatewayConfig config, GatewayMetrics metrics) {
        this.core = core;
        this.config = config;
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
                if (received.body() instanceof Body.Outgoing outgoing) {
                    core.uplink(session, received.seq(), outgoing);
                } else {
                    core.reject(session, received.seq(), ErrorCode.MALFORMED,
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
                    link.accepted(config.gatewayId(), config.maxPayloadBytes()); // our first ack was lost
                }
            }
            return;
        }
        if (existing != null && existing.epoch() > connect.epoch()) {
            send(new Frame.Error(connect.mnId(), connect.epoch(), ErrorCode.STALE_EPOCH, 0, "a newer session exists"),
                    peer);
            return;
        }
        if (!core.admit()) {
            send(new Frame.Error(connect.mnId(), connect.epoch(), ErrorCode.BUSY, 0, "gateway busy: try again later"),
                    peer);
            return;
        }
        core.open(connect.mnId(), connect.epoch(), session -> new UdpLink(session, this, peer, config.reliability()));
    }

    void retransmitting(UdpLink link) {
        inFlight.add(link);
    }

    void stopRetransmitting(UdpLink link) {
        inFlight.remove(link);
    }

    /** Retransmits what is due; a link that ran out of retries fails its session. */
    private void retransmit() {
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
