package io.ckc.gateway.udp;

import io.ckc.fuzz.Chunks;
import io.ckc.fuzz.DiscardingPublisher;
import io.ckc.fuzz.FuzzFinding;
import io.ckc.fuzz.SampleFrames;
import io.ckc.gateway.GatewayConfig;
import io.ckc.gateway.core.GatewayCore;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.FrameCodec;
import io.ckc.protocol.frame.MalformedFrameException;
import io.ckc.protocol.kafka.Topics;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A gateway's reliable-UDP side (the adapter's pipeline and one session shard of the core) on a conversation of
 * datagrams from four senders, two of them on another address, with time moving on between them: nothing it
 * receives makes it throw, and every datagram it sends is a frame that decodes. One input is one
 * {@link Chunks} sequence: a chunk's tag picks the sender (its two low bits) or, with its high bit set, lets
 * {@code 100 ms} times the chunk's length pass.
 */
public final class UdpSessionTarget {

    private static final InetSocketAddress GATEWAY = new InetSocketAddress("127.0.0.1", 5500);
    private static final InetSocketAddress[] SENDERS = {
            new InetSocketAddress("127.0.0.1", 40000), new InetSocketAddress("127.0.0.1", 40001),
            new InetSocketAddress("127.0.0.2", 40000), new InetSocketAddress("10.0.0.7", 50000)};
    private static final int TIME_PASSES = 0x80;
    private static final GatewayConfig CONFIG = GatewayConfig.forTest("gw-fuzz", "unused:9092", Topics.DEFAULT);
    private static final GatewayMetrics METRICS = new GatewayMetrics("gw-fuzz", new PrometheusRegistry());

    private UdpSessionTarget() {
    }

    /** Jazzer calls it once before fuzzing: the classes load and initialise here, not in the first input's time. */
    public static void fuzzerInitialize() {
        seeds().forEach(UdpSessionTarget::fuzzerTestOneInput);
    }

    public static void fuzzerTestOneInput(byte[] data) {
        EmbeddedChannel channel = new EmbeddedChannel();
        GatewayCore core = new GatewayCore(CONFIG.core(), new DiscardingPublisher(), METRICS,
                List.of(channel.eventLoop()));
        UdpShard shard = new UdpShard(core.shard(0), CONFIG.reliability(), METRICS, UdpShard.NodeRights.INSECURE);
        channel.pipeline().addLast(new UdpInitializer(
                new UdpFrameHandler(core, new UdpShard[]{shard}, METRICS, true), METRICS, null, null));
        channel.runPendingTasks();
        shard.bind(channel);
        try {
            for (Chunks.Chunk chunk : Chunks.split(data)) {
                if ((chunk.tag() & TIME_PASSES) != 0) {
                    channel.advanceTimeBy(100L * chunk.bytes().length, TimeUnit.MILLISECONDS);
                    channel.runScheduledPendingTasks();
                } else {
                    channel.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(chunk.bytes()), GATEWAY,
                            SENDERS[chunk.tag() & 3]));
                }
                channel.runPendingTasks();
                everySentDatagramDecodes(channel);
            }
        } finally {
            shard.stop();
            channel.runPendingTasks();
            channel.finishAndReleaseAll();
        }
    }

    private static void everySentDatagramDecodes(EmbeddedChannel channel) {
        DatagramPacket packet;
        while ((packet = channel.readOutbound()) != null) {
            try {
                FrameCodec.decode(packet.content());
            } catch (MalformedFrameException e) {
                throw new FuzzFinding("the gateway sent a datagram that is no frame", e);
            } finally {
                packet.release();
            }
        }
    }

    /** Conversations of a node: its whole life, a move to another address, a new epoch, a silence. */
    public static List<byte[]> seeds() {
        UUID node = new UUID(0x1234, 0x5678);
        List<Frame> life = SampleFrames.fromNode(node, 1);
        List<Chunks.Chunk> whole = new ArrayList<>();
        life.forEach(frame -> whole.add(datagram(0, frame)));
        List<Chunks.Chunk> moved = List.of(datagram(0, life.get(0)), datagram(0, life.get(1)),
                datagram(2, life.get(2)), datagram(2, life.get(4)));
        List<Chunks.Chunk> newEpoch = List.of(datagram(0, life.get(0)), datagram(0, life.get(1)),
                datagram(1, new Frame.Connect(node, 2)), datagram(1, life.get(2)));
        List<Chunks.Chunk> silence = List.of(datagram(0, life.get(0)), datagram(0, life.get(1)),
                new Chunks.Chunk(TIME_PASSES, new byte[50]), datagram(0, life.get(5)));
        return List.of(Chunks.join(whole), Chunks.join(moved), Chunks.join(newEpoch), Chunks.join(silence));
    }

    private static Chunks.Chunk datagram(int sender, Frame frame) {
        return new Chunks.Chunk(sender, SampleFrames.encode(frame));
    }
}
