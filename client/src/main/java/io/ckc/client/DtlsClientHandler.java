package io.ckc.client;

import io.ckc.protocol.dtls.DatagramQueue;
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
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * DTLS for the nodes of one client socket: each node's frames to its gateway go through a session of its own, opened
 * by a handshake when the node connects (a new epoch, or another gateway), and every frame the gateway sends back is
 * opened and checked to name that node. Frames written while the handshake runs wait for it (a few; a node's own
 * timers send again what does not fit). The nodes share the socket, and a gateway's handshake messages carry no
 * connection ID yet, so the handshakes with one gateway run one after another.
 */
final class DtlsClientHandler extends ChannelDuplexHandler {

    private static final Logger LOG = LoggerFactory.getLogger(DtlsClientHandler.class);
    /** Frames a node may write while its handshake runs. */
    static final int PENDING_FRAMES = 64;
    /** Handshakes block while they wait for the gateway; they run here, never on an event loop. */
    private static final ExecutorService HANDSHAKES =
            Executors.newCachedThreadPool(new DefaultThreadFactory("dtls-node-handshake", true));

    /** A node's session with its gateway; it moves with the node to another socket ({@link #release}). */
    static final class Connection {
        final UUID node;
        final InetSocketAddress gateway;
        final long epoch;
        final long connectionId;
        final DatagramQueue queue;
        final List<AddressedFrame> pending = new ArrayList<>();
        DtlsSession session;
        /** The socket's handler it writes by. */
        volatile DtlsClientHandler owner;

        Connection(DtlsClientHandler owner, UUID node, InetSocketAddress gateway, long epoch, long connectionId) {
            this.owner = owner;
            this.node = node;
            this.gateway = gateway;
            this.epoch = epoch;
            this.connectionId = connectionId;
            this.queue = new DatagramQueue(datagram -> this.owner.writeRaw(datagram, gateway));
        }
    }

    private final NodeCredentials credentials;
    private final AtomicLong dropped;
    private final Map<UUID, Connection> byNode = new HashMap<>();
    private final Map<Long, Connection> byConnectionId = new HashMap<>();
    private final Map<InetSocketAddress, Connection> handshaking = new HashMap<>();
    private final Map<InetSocketAddress, Queue<Connection>> waiting = new HashMap<>();
    private ChannelHandlerContext ctx;
    private DatagramWriter out;

    /** @param dropped counts datagrams and frames dropped: not DTLS, failed authentication, or no session */
    DtlsClientHandler(NodeCredentials credentials, AtomicLong dropped) {
        this.credentials = credentials;
        this.dropped = dropped;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.out = new DatagramWriter(ctx);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof AddressedFrame out)) {
            ctx.write(msg, promise);
            return;
        }
        promise.trySuccess(); // sent, or as good as lost on the way: the node's reliable session decides
        Frame frame = out.frame();
        Connection connection = byNode.get(frame.mnId());
        boolean connect = frame instanceof Frame.Connect;
        if (connection == null || !connection.gateway.equals(out.peer()) || (connect && connection.epoch != frame.epoch())) {
            if (!connect) {
                dropped.incrementAndGet(); // a session's frame after it ended (a Disconnect): nothing to seal it with
                return;
            }
            connection = open(frame.mnId(), out.peer(), frame.epoch());
            if (connection == null) {
                return;
            }
        }
        if (connection.session == null) {
            if (connection.pending.size() < PENDING_FRAMES) {
                connection.pending.add(out);
            }
            return;
        }
        seal(connection, frame);
    }

    private Connection open(UUID node, InetSocketAddress gateway, long epoch) {
        forget(node);
        Optional<NodeCredentials.Key> key = credentials.key(node);
        if (key.isEmpty()) {
            LOG.warn("Node {} has no key: it cannot connect to a gateway that authenticates", node);
            dropped.incrementAndGet();
            return null;
        }
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (byConnectionId.containsKey(id));
        Connection connection = new Connection(this, node, gateway, epoch, id);
        byNode.put(node, connection);
        byConnectionId.put(id, connection);
        if (handshaking.containsKey(gateway)) {
            waiting.computeIfAbsent(gateway, g -> new ArrayDeque<>()).add(connection);
        } else {
            handshake(connection, key.get());
        }
        return connection;
    }

    private void handshake(Connection connection, NodeCredentials.Key key) {
        handshaking.put(connection.gateway, connection);
        HANDSHAKES.execute(() -> {
            try {
                DtlsSession session = DtlsPeers.connect(connection.queue, key.identity(), key.key(),
                        connection.connectionId);
                if (!onChannelLoop(() -> established(connection, session))) {
                    session.close();
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("DTLS handshake of node {} with {} failed: {}", connection.node, connection.gateway, e.toString());
                onChannelLoop(() -> failed(connection));
            }
        });
    }

    /** Hands a handshake's outcome to the channel's loop; false once that loop has shut down (the simulator stops). */
    private boolean onChannelLoop(Runnable task) {
        try {
            ctx.executor().execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private void established(Connection connection, DtlsSession session) {
        handshaking.remove(connection.gateway, connection);
        if (byNode.get(connection.node) != connection) {
            session.close(); // the node moved on while it ran
        } else {
            connection.session = session;
            for (AddressedFrame frame : connection.pending) {
                seal(connection, frame.frame());
            }
            connection.pending.clear();
            drain(connection);
        }
        flushIfWritten();
        next(connection.gateway);
    }

    private void failed(Connection connection) {
        handshaking.remove(connection.gateway, connection);
        if (byNode.remove(connection.node, connection)) {
            byConnectionId.remove(connection.connectionId);
            dropped.addAndGet(connection.pending.size());
        }
        next(connection.gateway);
    }

    /** The next node waiting to shake hands with the gateway, if any still wants to. */
    private void next(InetSocketAddress gateway) {
        Queue<Connection> queue = waiting.get(gateway);
        while (queue != null && !queue.isEmpty()) {
            Connection connection = queue.poll();
            Optional<NodeCredentials.Key> key = credentials.key(connection.node);
            if (byNode.get(connection.node) == connection && key.isPresent()) {
                handshake(connection, key.get());
                return;
            }
        }
        waiting.remove(gateway);
    }

    private void seal(Connection connection, Frame frame) {
        ByteBuf encoded = FrameCodec.encode(frame, ctx.alloc());
        try {
            connection.session.send(encoded);
        } catch (IOException e) {
            forget(connection.node);
        } finally {
            encoded.release();
        }
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
        flushIfWritten();
    }

    private void read(ByteBuf datagram, InetSocketAddress sender) {
        Connection connection = null;
        if (DtlsRecords.hasConnectionId(datagram)) {
            connection = byConnectionId.get(DtlsRecords.connectionId(datagram));
        } else if (DtlsRecords.isRecord(datagram)) {
            connection = handshaking.get(sender);
            if (connection != null && DtlsRecords.isHelloVerifyRequest(datagram)
                    && !connection.queue.answersHello(DtlsRecords.sequenceNumber(datagram))) {
                connection = null; // the gateway's cookie for the ClientHello of a handshake before this one
            }
        }
        if (connection == null || !connection.queue.offer(ByteBufUtil.getBytes(datagram), sender)) {
            dropped.incrementAndGet();
            return;
        }
        if (connection.session != null) {
            drain(connection);
        }
    }

    private void drain(Connection connection) {
        try {
            connection.session.drain((plaintext, sender, newest) -> {
                try {
                    Frame frame = FrameCodec.decode(plaintext);
                    if (frame.mnId().equals(connection.node)) {
                        ctx.fireChannelRead(new AddressedFrame(frame, connection.gateway));
                    } else {
                        dropped.incrementAndGet();
                    }
                } catch (MalformedFrameException e) {
                    dropped.incrementAndGet();
                }
            });
        } catch (IOException e) {
            forget(connection.node); // the gateway closed it: the node's next connect shakes hands again
        }
    }

    /**
     * Takes the node's session off this socket, to {@link #adopt} on another: the node changes network and keeps
     * its session (the gateway follows the newest authenticated record to the new address). A session still
     * shaking hands is ended instead; the node's next connect starts again.
     */
    Connection release(UUID node) {
        Connection connection = byNode.get(node);
        if (connection == null || connection.session == null) {
            forget(node);
            return null;
        }
        byNode.remove(node);
        byConnectionId.remove(connection.connectionId);
        return connection;
    }

    /** Takes on a node's session from another socket ({@link #release}). */
    void adopt(Connection connection) {
        forget(connection.node);
        if (byConnectionId.containsKey(connection.connectionId)) {
            connection.session.close(); // another node's ID here: 1 in 2^64, and the node connects again
            return;
        }
        connection.owner = this;
        byNode.put(connection.node, connection);
        byConnectionId.put(connection.connectionId, connection);
    }

    /** Ends the node's session, if it has one: the node left this socket, or connects anew. */
    void forget(UUID node) {
        Connection connection = byNode.remove(node);
        if (connection != null) {
            byConnectionId.remove(connection.connectionId);
            if (connection.session != null) {
                connection.session.close();
            }
        }
    }

    private void writeRaw(byte[] datagram, InetSocketAddress to) {
        out.write(datagram, to);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        out.flushed();
        ctx.flush();
    }

    private void flushIfWritten() {
        out.flushIfWritten();
    }
}
