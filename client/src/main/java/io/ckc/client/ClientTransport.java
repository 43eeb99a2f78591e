package io.ckc.client;

import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.FrameCodec;
import io.ckc.protocol.mrudp.CongestionWindow;
import io.ckc.protocol.netty.AddressedFrame;
import io.ckc.protocol.netty.FrameDatagramDecoder;
import io.ckc.protocol.netty.FrameDatagramEncoder;
import io.ckc.protocol.netty.FrameWriter;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramChannel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Comparator;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * One UDP socket shared by any number of mobile nodes: frames name their node, so a fleet of
 * thousands of nodes needs only a few sockets and threads. Each node attached to a transport is
 * confined to the transport's event loop.
 */
public final class ClientTransport implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClientTransport.class);

    /** Retransmission timers are checked this often at most, while a node has something due. */
    static final long TICK_MS = 10;
    /** Keepalive and silence checks run this often. */
    static final long SWEEP_MS = 500;
    /** The longest a node with frames in flight goes between ticks. */
    static final long MAX_TICK_GAP_MS = 100;

    private final EventLoopGroup ownedGroup;
    private final Channel channel;
    private final Map<UUID, MobileNode> nodes = new HashMap<>();
    /**
     * The nodes that need a tick, by when: a node with frames in flight is ticked when its next retransmission may be
     * due, or {@value #MAX_TICK_GAP_MS} ms later at the latest (its liveness probe and outbox), one connecting or
     * sending every tick. An entry is stale once its node's {@link MobileNode#tickAtMs} moved. Why not every active
     * node every tick: with a frame in flight on each of 100,000 nodes (a groupcast), walking them all every 10 ms was
     * 35% of the simulator's CPU, more than the gateways it measures.
     */
    private final PriorityQueue<Due> due = new PriorityQueue<>(Comparator.comparingLong(Due::atMs));
    /** The nodes of one tick or sweep, reused: the set they come from may change while they tick. */
    private final List<MobileNode> ticking = new ArrayList<>();
    private final FrameWriter writer;
    private final AtomicLong malformed = new AtomicLong();
    private final List<Future<?>> timers = new ArrayList<>();
    /**
     * The tick armed for the earliest {@link #due} node, or null while none is due. Why not a tick every
     * {@value #TICK_MS} ms: a fleet of idle nodes has nothing due, and a million of them over a thousand sockets
     * woke a hundred thousand times a second for nothing.
     */
    private Future<?> tick;
    /** When {@link #tick} runs; Long.MAX_VALUE while none is armed. */
    private long armedAtMs = Long.MAX_VALUE;
    /** When the last tick ran: the next one runs {@value #TICK_MS} ms later at the earliest. */
    private long lastTickMs = Long.MIN_VALUE / 2;
    private final AtomicLong ticks = new AtomicLong();
    private final AtomicLong sweeps = new AtomicLong();
    private volatile boolean closed;
    /** Bounds the frames all nodes of this socket have unacknowledged: a saturated gateway gets fewer, not more. */
    private final CongestionWindow window = CongestionWindow.forSocket();

    /** Null when the nodes speak to insecure gateways: plain frames. */
    private final DtlsClientHandler dtls;
    private final AtomicLong dtlsDropped = new AtomicLong();

    private ClientTransport(EventLoopGroup group, boolean owned, Supplier<ChannelHandler> linkHook,
                            NodeCredentials credentials) throws InterruptedException {
        this.ownedGroup = owned ? group : null;
        this.dtls = credentials == null ? null : new DtlsClientHandler(credentials, dtlsDropped);
        this.channel = new Bootstrap()
                .group(group)
                .channel(DatagramTransport.current().channelClass())
                .option(ChannelOption.SO_RCVBUF, 4 * 1024 * 1024)
                .option(ChannelOption.SO_SNDBUF, 4 * 1024 * 1024)
                .option(ChannelOption.RCVBUF_ALLOCATOR, FrameDatagramDecoder.receiveAllocator(FrameCodec.MAX_DATAGRAM_BYTES))
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        if (linkHook != null) {
                            ch.pipeline().addLast("link-hook", linkHook.get());
                        }
                        ch.pipeline().addLast(FrameDatagramEncoder.INSTANCE);
                        if (dtls != null) {
                            ch.pipeline().addLast(dtls); // frames in and out, sealed records on the socket
                        }
                        ch.pipeline().addLast(new FrameDatagramDecoder((sender, error) -> malformed.incrementAndGet()),
                                new Dispatcher());
                    }
                })
                .bind(new InetSocketAddress("0.0.0.0", 0))
                .sync()
                .channel();
        writer = new FrameWriter(channel);
        EventLoop loop = channel.eventLoop();
        timers.add(loop.scheduleAtFixedRate(this::sweep, SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS));
    }

    /** A transport with its own I/O thread, for gateways that do not authenticate (the insecure mode). */
    public static ClientTransport open() throws InterruptedException {
        return new ClientTransport(DatagramTransport.current().newGroup(1), true, null, null);
    }

    /** A transport with its own I/O thread whose nodes authenticate with the keys given (DTLS). */
    public static ClientTransport open(NodeCredentials credentials) throws InterruptedException {
        return new ClientTransport(DatagramTransport.current().newGroup(1), true, null, credentials);
    }

    /** A transport on a shared event loop group (a fleet: several transports over a few threads), insecure. */
    public static ClientTransport open(EventLoopGroup group) throws InterruptedException {
        return new ClientTransport(group, false, null, null);
    }

    /**
     * A transport on a shared event loop group.
     *
     * @param credentials the nodes' keys (DTLS), or null for gateways that do not authenticate
     * @param linkHook    a first pipeline handler, for tests that drop or reorder datagrams; null for none
     */
    public static ClientTransport open(EventLoopGroup group, NodeCredentials credentials,
                                       Supplier<ChannelHandler> linkHook) throws InterruptedException {
        return new ClientTransport(group, false, linkHook, credentials);
    }

    /** A transport whose pipeline starts with the given handler: for tests that drop or reorder datagrams. */
    public static ClientTransport open(EventLoopGroup group, Supplier<ChannelHandler> linkHook)
            throws InterruptedException {
        return new ClientTransport(group, false, linkHook, null);
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Ticks run so far: each handles the nodes whose retransmissions, probes or connects are due. */
    long ticks() {
        return ticks.get();
    }

    /** Sweeps run so far (keepalives and silence checks, every {@value #SWEEP_MS} ms). */
    long sweeps() {
        return sweeps.get();
    }

    /** Datagrams dropped as malformed. */
    public long malformedDatagrams() {
        return malformed.get();
    }

    /** Datagrams and frames the DTLS layer dropped: not DTLS, failed authentication, or no session for them. */
    public long dtlsDropped() {
        return dtlsDropped.get();
    }

    EventLoop eventLoop() {
        return channel.eventLoop();
    }

    /** The congestion window of this socket; read it on the transport's event loop. */
    CongestionWindow window() {
        return window;
    }

    /**
     * The limit of this socket's congestion window now, in frames, asked of its event loop (from another thread: waits
     * up to a second for it); -1 if the loop did not answer.
     */
    public int windowLimit() throws InterruptedException {
        Integer limit = askLoop(window::limit);
        return limit == null ? -1 : limit;
    }

    /**
     * What this socket's nodes hold of their applications' messages, asked of its event loop (waits up to a second):
     * waiting for a gateway to take them, waiting for room in a window, sent and not acknowledged; null if the loop did
     * not answer. Where an overload's messages went that never came back.
     */
    public long[] heldMessages() throws InterruptedException {
        return askLoop(() -> {
            long[] held = new long[3];
            nodes.values().forEach(node -> node.addHeld(held));
            return held;
        });
    }

    /** Asks this socket's event loop (at once on it; from another thread, waiting up to a second); null unanswered. */
    private <T> T askLoop(Callable<T> question) throws InterruptedException {
        try {
            return eventLoop().inEventLoop() ? question.call() : eventLoop().submit(question).get(1, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    // The methods below run on the event loop.

    void attach(MobileNode node) {
        nodes.put(node.id(), node);
    }

    /**
     * Detaches a node that moves to another socket, keeping its DTLS session for {@link #attachMoved}; null when there
     * is none to keep.
     */
    DtlsClientHandler.Connection detachMoving(MobileNode node) {
        DtlsClientHandler.Connection kept = nodes.get(node.id()) == node && dtls != null ? dtls.release(node.id()) : null;
        nodes.remove(node.id(), node);
        node.tickAtMs = Long.MAX_VALUE;
        return kept;
    }

    /** Attaches a node that moved here from another socket, with what {@link #detachMoving} kept. */
    void attachMoved(MobileNode node, DtlsClientHandler.Connection kept) {
        attach(node);
        if (kept != null && dtls != null) {
            dtls.adopt(kept);
        }
    }

    void detach(MobileNode node) {
        if (nodes.remove(node.id(), node) && dtls != null) {
            dtls.forget(node.id());
        }
        node.tickAtMs = Long.MAX_VALUE;
    }

    /** Marks a node as needing timer ticks from the next one on (connecting, or frames in flight). */
    void activate(MobileNode node) {
        schedule(node, MobileNode.nowMs());
    }

    /** The node's next tick at the time given, unless one is due before. */
    private void schedule(MobileNode node, long atMs) {
        if (atMs < node.tickAtMs) {
            node.tickAtMs = atMs;
            due.add(new Due(atMs, node));
            armTick(atMs);
        }
    }

    /** Has a tick run at {@code atMs} ({@value #TICK_MS} ms after the last one at the earliest) unless one runs before. */
    private void armTick(long atMs) {
        long at = Math.max(atMs, lastTickMs + TICK_MS);
        if (at >= armedAtMs || closed) {
            return;
        }
        if (tick != null) {
            tick.cancel(false);
        }
        armedAtMs = at;
        tick = eventLoop().schedule(this::tickActive, Math.max(0, at - MobileNode.nowMs()), TimeUnit.MILLISECONDS);
    }

    private record Due(long atMs, MobileNode node) {
    }

    void send(Frame frame, InetSocketAddress gateway) {
        writer.send(frame, gateway);
    }

    private void tickActive() {
        long now = MobileNode.nowMs();
        ticks.incrementAndGet();
        tick = null;
        armedAtMs = Long.MAX_VALUE;
        lastTickMs = now;
        Due next;
        while ((next = due.peek()) != null && next.atMs() <= now) { // taken first: a node's tick may activate others
            due.poll();
            MobileNode node = next.node();
            if (node.tickAtMs == next.atMs() && nodes.get(node.id()) == node) {
                node.tickAtMs = Long.MAX_VALUE;
                ticking.add(node);
            }
        }
        for (MobileNode node : ticking) {
            if (node.tick(now) && nodes.get(node.id()) == node) {
                schedule(node, node.nextTickMs(now));
            }
        }
        ticking.clear();
        if ((next = due.peek()) != null) {
            armTick(next.atMs());
        }
    }

    private void sweep() {
        long now = MobileNode.nowMs();
        sweeps.incrementAndGet();
        for (MobileNode node : nodes.values()) { // reused, not a new copy every sweep of every node
            ticking.add(node);                    // a node that lost its gateway may detach
        }
        for (MobileNode node : ticking) {
            node.checkLiveness(now);
        }
        ticking.clear();
    }

    private final class Dispatcher extends SimpleChannelInboundHandler<AddressedFrame> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, AddressedFrame in) {
            MobileNode node = nodes.get(in.frame().mnId());
            if (node != null) {
                node.onFrame(in.frame(), in.peer());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof ClosedChannelException) {
                // A frame written by a node after its socket closed (a timer that fired in between): that
                // node's session is over with the socket, so the frame has nowhere to go.
                LOG.debug("Frame written after socket {} closed", ctx.channel().localAddress());
                return;
            }
            LOG.warn("Error on socket {}", ctx.channel().localAddress(), cause);
        }
    }

    /**
     * Closes the socket after the frames already written on it have left. Why: nodes closed just before
     * (a fleet at its end) write their Disconnects in tasks queued on the loop, and those frames wait for
     * the loop's flush; a close that ran before that flush failed them, so their gateways never heard
     * the nodes leave (and Netty logged each failure as an unhandled exception).
     */
    @Override
    public void close() throws InterruptedException {
        closed = true;
        timers.forEach(t -> t.cancel(false));
        channel.eventLoop().submit(() -> {
            if (tick != null) {
                tick.cancel(false);
            }
            channel.flush();
        }).sync(); // after every task queued before this call
        channel.close().sync();
        if (ownedGroup != null) {
            ownedGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
