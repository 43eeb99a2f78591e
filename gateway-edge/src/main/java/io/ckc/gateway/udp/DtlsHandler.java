package io.ckc.gateway.udp;

import io.ckc.gateway.core.Deadlines;
import io.ckc.gateway.core.SessionShard;
import io.ckc.protocol.dtls.DatagramWriter;
import io.ckc.protocol.dtls.DtlsPeers;
import io.ckc.protocol.dtls.DtlsRecords;
import io.ckc.protocol.dtls.DtlsSession;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.FrameCodec;
import io.ckc.protocol.frame.MalformedFrameException;
import io.ckc.protocol.netty.AddressedFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.concurrent.ScheduledFuture;
import org.bouncycastle.tls.DTLSRequest;
import org.bouncycastle.tls.DTLSVerifier;
import org.bouncycastle.tls.DatagramSender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * DTLS 1.2 on one reliable-UDP socket, between the datagrams and the frame handlers: only a node that proved its key
 * gets a session, and only frames that name that node come out of it.
 * <ul>
 * <li>A ClientHello is answered with a stateless cookie (RFC 6347 4.2.1) until it proves its address; then the
 * handshake runs on a handshake thread, and the session is handed to the socket its node's shard writes on.</li>
 * <li>A record with a connection ID goes to its session, on that session's loop, whichever socket read it; a record
 * that fails authentication or was seen before is dropped there, and the newest authenticated record moves the
 * session to its address (a node that roams keeps its session; a copy sent from elsewhere moves nothing).</li>
 * <li>A frame out is sealed by its node's session; a frame for a node without one is dropped.</li>
 * <li>Anything else, a plain CKC frame included, is dropped and counted.</li>
 * </ul>
 * Sessions silent for longer than the idle time are closed.
 */
final class DtlsHandler extends ChannelDuplexHandler {

    private static final Logger LOG = LoggerFactory.getLogger(DtlsHandler.class);
    private static final long SWEEP_MS = 1_000;

    private final DtlsSessions sessions;
    /** One per socket: a verifier is not for several threads at once. */
    private final DTLSVerifier verifier = new DTLSVerifier(DtlsPeers.crypto());
    /** The sessions that live on this socket's loop, by node. */
    private final Map<UUID, DtlsSessions.Peer> owned = new HashMap<>();
    /** When each owned session has been idle too long unless heard from: a timer wheel, not a walk over them all. */
    private final Deadlines<DtlsSessions.Peer> idle;
    private ChannelHandlerContext ctx;
    private DatagramWriter out;
    private ScheduledFuture<?> sweeps;

    DtlsHandler(DtlsSessions sessions) {
        this.sessions = sessions;
        this.idle = new Deadlines<>(peer -> peer.heardMs + sessions.idleMs, peer -> owned.get(peer.node()) == peer);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.out = new DatagramWriter(ctx);
        sweeps = ctx.executor().scheduleAtFixedRate(this::closeIdle, SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        sweeps.cancel(false);
        owned.values().forEach(this::closeQuietly);
        owned.clear();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof DatagramPacket packet)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            read(packet.content(), packet.sender());
        } finally {
            packet.release();
        }
    }

    private void read(ByteBuf datagram, InetSocketAddress sender) {
        if (DtlsRecords.hasConnectionId(datagram)) {
            DtlsSessions.Peer peer = sessions.byConnectionId.get(DtlsRecords.connectionId(datagram));
            if (peer == null) {
                sessions.metrics.dtlsDropped.labelValues("unknown_session").inc();
            } else {
                queue(peer, datagram, sender);
            }
            return;
        }
        if (!DtlsRecords.isRecord(datagram)) {
            sessions.metrics.dtlsDropped.labelValues("unauthenticated").inc();
            return;
        }
        DtlsSessions.Peer handshake = sessions.handshaking.get(sender);
        if (handshake != null) {
            queue(handshake, datagram, sender);
        } else if (DtlsRecords.contentType(datagram) == DtlsRecords.HANDSHAKE && DtlsRecords.epoch(datagram) == 0) {
            hello(datagram, sender);
        } else {
            sessions.metrics.dtlsDropped.labelValues("unauthenticated").inc();
        }
    }

    /** A ClientHello from an address without a handshake: a cookie, or, with a valid cookie, a handshake. */
    private void hello(ByteBuf datagram, InetSocketAddress sender) {
        byte[] bytes = ByteBufUtil.getBytes(datagram);
        DTLSRequest request = verifier.verifyRequest(clientId(sender), bytes, 0, bytes.length,
                cookieSender(sender));
        if (request == null) {
            return; // answered with a cookie, or not a ClientHello
        }
        if (sessions.handshaking.size() >= sessions.maxHandshakes || !sessions.startHandshake(sender.getAddress())) {
            sessions.metrics.dtlsHandshakes.labelValues("refused").inc();
            return;
        }
        if (!sessions.addressLimits.open(sender.getAddress())) {
            sessions.endHandshake(sender.getAddress());
            sessions.metrics.dtlsHandshakes.labelValues("refused").inc();
            return;
        }
        DtlsSessions.Peer peer = sessions.newPeer(sender, this);
        if (sessions.handshaking.putIfAbsent(sender, peer) != null) {
            sessions.byConnectionId.remove(peer.connectionId, peer);
            sessions.endHandshake(sender.getAddress());
            return;
        }
        try {
            sessions.handshakes.execute(() -> handshake(peer, request));
        } catch (RejectedExecutionException e) {
            forget(peer);
            sessions.endHandshake(sender.getAddress());
            sessions.metrics.dtlsHandshakes.labelValues("refused").inc();
        }
    }

    /** On a handshake thread: the handshake, then the session handed to the loop it lives on. */
    private void handshake(DtlsSessions.Peer peer, DTLSRequest request) {
        InetSocketAddress from = peer.address;
        try {
            DtlsPeers.Accepted accepted = DtlsPeers.accept(peer.queue, request, peer.connectionId,
                    sessions.authenticator::key);
            peer.session = accepted.session();
            peer.identity = accepted.identity();
            peer.grants = sessions.authenticator.grants(peer.identity);
            DtlsHandler owner = sessions.ownerOf(peer.node());
            peer.owner = owner;
            sessions.metrics.dtlsHandshakes.labelValues("ok").inc();
            owner.ctx.executor().execute(() -> owner.install(peer));
        } catch (IOException | RuntimeException e) {
            LOG.debug("DTLS handshake with {} failed: {}", from, e.toString());
            sessions.metrics.dtlsHandshakes.labelValues("failed").inc();
            sessions.byConnectionId.remove(peer.connectionId, peer);
        } finally {
            sessions.handshaking.remove(from, peer);
            sessions.endHandshake(from.getAddress());
        }
    }

    /** On this loop: the node's new session replaces any older one. */
    private void install(DtlsSessions.Peer peer) {
        DtlsSessions.Peer older = owned.put(peer.node(), peer);
        sessions.byNode.put(peer.node(), peer);
        if (older != null) {
            closeQuietly(older);
        }
        sessions.metrics.dtlsSessions.set(sessions.byNode.size());
        peer.heardMs = SessionShard.nowMs();
        idle.add(peer, peer.heardMs);
        drain(peer);
    }

    private void queue(DtlsSessions.Peer peer, ByteBuf datagram, InetSocketAddress sender) {
        if (peer.owner == this && owned.get(peer.node()) == peer) {
            // the session lives on this loop: opened at once, without a copy, when nothing queued waits before it
            DtlsSession.Opened opened;
            try {
                opened = peer.session.openNow(datagram, sender, (plaintext, from, newest) -> open(peer, plaintext, from, newest));
            } catch (IOException e) {
                ended(peer, e);
                return;
            }
            if (opened != null) {
                opened(peer, opened);
                return;
            }
        }
        if (!peer.queue.offer(ByteBufUtil.getBytes(datagram), sender)) {
            sessions.metrics.dtlsDropped.labelValues("queue_full").inc();
            return;
        }
        DtlsHandler owner = peer.owner;
        if (owner == null) {
            return; // the handshake thread reads it
        }
        if (owner.ctx.executor().inEventLoop()) {
            owner.drain(peer);
        } else {
            owner.ctx.executor().execute(() -> owner.drain(peer));
        }
    }

    /** On this loop: opens what the peer's queue holds and passes its frames on. */
    private void drain(DtlsSessions.Peer peer) {
        if (owned.get(peer.node()) != peer) {
            return; // replaced or closed: its records are the older session's
        }
        DtlsSession.Opened opened;
        try {
            opened = peer.session.drain((plaintext, sender, newest) -> open(peer, plaintext, sender, newest));
        } catch (IOException e) {
            ended(peer, e);
            return;
        }
        opened(peer, opened);
    }

    /** What a drain or an immediate open read: the node heard from, forgeries counted, what it made written. */
    private void opened(DtlsSessions.Peer peer, DtlsSession.Opened opened) {
        if (opened.authenticated() > 0) {
            peer.heardMs = SessionShard.nowMs();
        }
        if (opened.unauthenticated() > 0) {
            sessions.metrics.dtlsDropped.labelValues("forged").inc(opened.unauthenticated());
        }
        flushIfWritten();
    }

    private void ended(DtlsSessions.Peer peer, IOException e) {
        LOG.debug("DTLS session of {} ended: {}", peer.node(), e.toString());
        owned.remove(peer.node(), peer);
        closeQuietly(peer);
    }

    private void open(DtlsSessions.Peer peer, ByteBuf plaintext, InetSocketAddress sender, boolean newest) {
        Frame frame;
        try {
            frame = FrameCodec.decode(plaintext);
        } catch (MalformedFrameException e) {
            sessions.metrics.malformedFrames.labelValues(e.reason().name()).inc();
            return;
        }
        if (!frame.mnId().equals(peer.node())) {
            sessions.metrics.dtlsDropped.labelValues("wrong_node").inc();
            return;
        }
        if (newest && sender != null && !sender.equals(peer.address)) {
            peer.address = sender; // the node moved: only the newest authenticated record moves it
        }
        ctx.fireChannelRead(new AddressedFrame(frame, peer.address));
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof AddressedFrame addressed)) {
            ctx.write(msg, promise);
            return;
        }
        DtlsSessions.Peer peer = owned.get(addressed.frame().mnId());
        if (peer == null) {
            sessions.metrics.dtlsDropped.labelValues("no_session").inc();
            promise.trySuccess(); // as a datagram lost on the way: the reliable session sends again or gives up
            return;
        }
        ByteBuf encoded = FrameCodec.encode(addressed.frame(), ctx.alloc());
        try {
            peer.session.send(encoded);
            promise.trySuccess();
        } catch (IOException e) {
            owned.remove(peer.node(), peer);
            closeQuietly(peer);
            promise.tryFailure(e);
        } finally {
            encoded.release();
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        out.flushed();
        ctx.flush();
    }

    /** A sealed record or a handshake message to a node: from this loop at once, from a handshake thread by a task. */
    void writeRaw(byte[] datagram, InetSocketAddress to) {
        out.write(datagram, to);
    }

    private void flushIfWritten() {
        out.flushIfWritten();
    }

    /** What a cookie is bound to: the sender's address and port. */
    private static byte[] clientId(InetSocketAddress sender) {
        byte[] address = sender.getAddress().getAddress();
        byte[] id = java.util.Arrays.copyOf(address, address.length + 2);
        id[address.length] = (byte) (sender.getPort() >>> 8);
        id[address.length + 1] = (byte) sender.getPort();
        return id;
    }

    private DatagramSender cookieSender(InetSocketAddress to) {
        return new DatagramSender() {
            @Override
            public int getSendLimit() {
                return DtlsRecords.MAX_RECORD_BYTES;
            }

            @Override
            public void send(byte[] buf, int off, int len) {
                out.write(java.util.Arrays.copyOfRange(buf, off, off + len), to);
            }
        };
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushIfWritten();
        ctx.fireChannelReadComplete();
    }

    private void closeIdle() {
        List<DtlsSessions.Peer> due = idle.due(SessionShard.nowMs());
        if (!due.isEmpty()) {
            due.forEach(peer -> {
                owned.remove(peer.node(), peer);
                closeQuietly(peer);
            });
            flushIfWritten();
        }
    }

    private void closeQuietly(DtlsSessions.Peer peer) {
        forget(peer);
        peer.session.close();
        sessions.metrics.dtlsSessions.set(sessions.byNode.size());
    }

    private void forget(DtlsSessions.Peer peer) {
        if (peer.identity != null) {
            sessions.byNode.remove(peer.node(), peer);
        }
        sessions.byConnectionId.remove(peer.connectionId, peer);
        sessions.handshaking.remove(peer.address, peer);
    }
}
