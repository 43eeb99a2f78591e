package io.ckc.client;

import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.FrameCodec;
import io.ckc.protocol.frame.GatewayAddress;
import io.ckc.protocol.mrudp.ReliabilityConfig;
import io.ckc.protocol.mrudp.ReliableSession;
import io.ckc.protocol.netty.AddressedFrame;
import io.ckc.protocol.netty.FrameDatagramDecoder;
import io.ckc.protocol.netty.FrameDatagramEncoder;
import io.ckc.protocol.netty.FrameWriter;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramChannel;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gateway as small as the protocol allows, for the client's tests: accepts sessions (or answers
 * BUSY a given number of times), acknowledges data frames (or holds the acknowledgements back),
 * records each node's messages in the order they became deliverable, answers pings, sends
 * deliveries and handovers, and can forget every session as a restarted gateway would. Its state
 * lives on its own event loop; the test reads it through {@link #call}.
 */
final class FakeGateway implements AutoCloseable {

    private final String id;
    private final EventLoopGroup loop = DatagramTransport.current().newGroup(1);
    private final Channel channel;
    private final FrameWriter out;
    private final Map<UUID, ReliableSession> sessions = new HashMap<>();
    private final Map<UUID, InetSocketAddress> peers = new HashMap<>();
    private final Map<UUID, List<UUID>> received = new HashMap<>();
    private record Held(UUID node, int seq) {
    }

    private final List<Held> heldAcks = new ArrayList<>();
    private ErrorCode refusalCode = ErrorCode.BUSY;
    /** Data frames seen the first time, not yet acknowledged: what the node has in flight. */
    private int unacknowledged;
    private int mostUnacknowledged;
    private boolean holdAcks;
    private int busyAnswers;
    private int busyRefusals;
    final AtomicInteger busySent = new AtomicInteger();
    final AtomicInteger connects = new AtomicInteger();
    final AtomicInteger pings = new AtomicInteger();
    /** Data frames of a session that came in, repeats included. */
    final AtomicInteger dataFrames = new AtomicInteger();
    /** What the node said of the deliveries: the delivery acknowledged, or refused (by error code). */
    final List<String> deliveryAnswers = new java.util.concurrent.CopyOnWriteArrayList<>();

    FakeGateway(String id) throws InterruptedException {
        this.id = id;
        channel = new Bootstrap().group(loop).channel(DatagramTransport.current().channelClass())
                .option(ChannelOption.RCVBUF_ALLOCATOR, FrameDatagramDecoder.receiveAllocator(FrameCodec.MAX_DATAGRAM_BYTES))
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(FrameDatagramEncoder.INSTANCE,
                                new FrameDatagramDecoder((sender, error) -> { }), new Handler());
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        out = new FrameWriter(channel);
        channel.eventLoop().scheduleAtFixedRate(() -> sessions.values().forEach(s -> s.tick(MobileNode.nowMs())),
                10, 10, TimeUnit.MILLISECONDS);
    }

    InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    GatewayAddress gatewayAddress() {
        return new GatewayAddress(id, "127.0.0.1", address().getPort());
    }

    /** Runs on the gateway's loop and returns the result: how a test reads the gateway's state. */
    <T> T call(Callable<T> action) throws Exception {
        return channel.eventLoop().submit(action).get(10, TimeUnit.SECONDS);
    }

    List<UUID> receivedFrom(UUID node) throws Exception {
        return call(() -> List.copyOf(received.getOrDefault(node, List.of())));
    }

    boolean hasSession(UUID node) throws Exception {
        return call(() -> sessions.containsKey(node));
    }

    /** The most data frames the nodes had unacknowledged here at once. */
    int mostUnacknowledged() throws Exception {
        return call(() -> mostUnacknowledged);
    }

    void answerBusy(int times) throws Exception {
        call(() -> busyAnswers = times);
    }

    /** The next {@code times} messages are refused as BUSY, as a gateway whose core is behind refuses them. */
    void refuseMessagesAsBusy(int times) throws Exception {
        refuseMessages(times, ErrorCode.BUSY);
    }

    int refusalsLeft() throws Exception {
        return call(() -> busyRefusals);
    }

    /** The next {@code times} messages are refused with {@code code}. */
    void refuseMessages(int times, ErrorCode code) throws Exception {
        call(() -> {
            refusalCode = code;
            return busyRefusals = times;
        });
    }

    void holdAcks(boolean hold) throws Exception {
        call(() -> {
            holdAcks = hold;
            if (!hold) {
                heldAcks.forEach(held -> acknowledge(held.node(), held.seq()));
                heldAcks.clear();
            }
            return null;
        });
    }

    /** Forgets every session, as a gateway restarted without its state. */
    void forgetSessions() throws Exception {
        call(() -> {
            sessions.clear();
            return null;
        });
    }

    void deliver(UUID node, UUID messageId, byte[] payload) throws Exception {
        sendReliably(node, new Body.Delivery(messageId, "app", payload));
    }

    /** A delivery with its deadline (wall clock, ms). */
    void deliver(UUID node, UUID messageId, byte[] payload, long expiresAtMs) throws Exception {
        sendReliably(node, new Body.Delivery(messageId, "app", payload, expiresAtMs));
    }

    /** A delivery past its deadline, sent without its content, as a gateway does. */
    void deliverExpired(UUID node, UUID messageId) throws Exception {
        sendReliably(node, new Body.Expired(messageId));
    }

    void handover(UUID node, GatewayAddress target) throws Exception {
        sendReliably(node, new Body.Handover(target));
    }

    void gatewayList(UUID node, List<GatewayAddress> gateways) throws Exception {
        sendReliably(node, new Body.GatewayList(gateways));
    }

    private void sendReliably(UUID node, Body body) throws Exception {
        call(() -> {
            sessions.get(node).send(body, MobileNode.nowMs());
            return null;
        });
    }

    private void acknowledge(UUID node, int seq) {
        ReliableSession session = sessions.get(node);
        if (session != null) {
            session.acknowledge(seq);
            unacknowledged--;
        }
    }

    private final class Handler extends SimpleChannelInboundHandler<AddressedFrame> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, AddressedFrame in) {
            Frame frame = in.frame();
            UUID node = frame.mnId();
            peers.put(node, in.peer());
            if (frame instanceof Frame.Connect connect) {
                ReliableSession existing = sessions.get(node);
                if (existing != null && existing.epoch() == connect.epoch()) {
                    out.send(new Frame.ConnectAck(node, connect.epoch(), id, 16 * 1024), in.peer());
                } else if (busyAnswers > 0) {
                    busyAnswers--;
                    busySent.incrementAndGet();
                    out.send(new Frame.Error(node, connect.epoch(), ErrorCode.BUSY, 0, "busy"), in.peer());
                } else {
                    connects.incrementAndGet();
                    sessions.put(node, new ReliableSession(node, connect.epoch(), ReliabilityConfig.DEFAULT,
                            f -> out.send(f, peers.get(node))));
                    out.send(new Frame.ConnectAck(node, connect.epoch(), id, 16 * 1024), in.peer());
                }
                return;
            }
            ReliableSession session = sessions.get(node);
            if (session == null || session.epoch() != frame.epoch()) {
                if (frame instanceof Frame.Data data) {
                    out.send(new Frame.Error(node, frame.epoch(), ErrorCode.UNKNOWN_SESSION, data.seq(), "no session"),
                            in.peer());
                }
                return;
            }
            if (frame instanceof Frame.Data data) {
                dataFrames.incrementAndGet();
                if (holdAcks && heldAcks.contains(new Held(node, data.seq()))) {
                    return; // a retransmission of a frame whose ack is held: a duplicate would be acknowledged at once
                }
                int before = unacknowledged;
                for (ReliableSession.Received r : session.onData(data.seq(), data.body())) {
                    if (busyRefusals > 0) {
                        busyRefusals--;
                        session.refuse(r.seq(), new Frame.Error(node, frame.epoch(), refusalCode, r.seq(), "refused"));
                        continue;
                    }
                    received.computeIfAbsent(node, k -> new ArrayList<>()).add(((Body.Outgoing) r.body()).messageId());
                    unacknowledged++;
                    if (holdAcks) {
                        heldAcks.add(new Held(node, r.seq()));
                    } else {
                        acknowledge(node, r.seq());
                    }
                }
                mostUnacknowledged = Math.max(mostUnacknowledged, Math.max(before, unacknowledged));
            } else if (frame instanceof Frame.Ack ack) {
                answered(session.onAck(ack.seq(), MobileNode.nowMs()), "acknowledged");
            } else if (frame instanceof Frame.Error error && error.seq() > 0) {
                answered(session.onRefused(error.seq(), MobileNode.nowMs(), false), error.code().name());
            } else if (frame instanceof Frame.Ping ping) {
                pings.incrementAndGet();
                out.send(new Frame.Pong(node, ping.epoch(), ping.timestamp()), in.peer());
            } else if (frame instanceof Frame.Disconnect) {
                sessions.remove(node);
            }
        }
    }

    private void answered(Body body, String answer) {
        if (body instanceof Body.Delivery delivery) {
            deliveryAnswers.add(delivery.messageId() + " " + answer);
        } else if (body instanceof Body.Expired expired) {
            deliveryAnswers.add(expired.messageId() + " " + answer);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (loop.isShuttingDown()) {
            return;
        }
        channel.close().sync();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
