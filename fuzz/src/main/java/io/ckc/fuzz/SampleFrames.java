package io.ckc.fuzz;

import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.FrameCodec;
import io.ckc.protocol.frame.GatewayAddress;
import io.ckc.protocol.records.Context;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** One frame of every type and body, as a node and a gateway send them: the seeds of the frame targets. */
public final class SampleFrames {

    private SampleFrames() {
    }

    /** A node's frames at epoch {@code epoch}: connect, a message, a groupcast, a ping, acks, a disconnect. */
    public static List<Frame> fromNode(UUID node, long epoch) {
        byte[] payload = "hello".getBytes(StandardCharsets.UTF_8);
        Context here = new Context(-22.9, -43.2, 0.8, Map.of("floor", "3"));
        return List.of(
                new Frame.Connect(node, epoch),
                new Frame.Data(node, epoch, 1, new Body.MnMessage(new UUID(1, 1), DiscardingPublisher.CHANNEL,
                        null, payload)),
                new Frame.Data(node, epoch, 2, new Body.MnMessage(new UUID(1, 2), DiscardingPublisher.CHANNEL,
                        here, payload)),
                new Frame.Data(node, epoch, 3, new Body.MnGroupcast(new UUID(1, 3), "grid-cell/3-4", here, payload)),
                new Frame.Ack(node, epoch, 1),
                new Frame.Ping(node, epoch, 123_456_789L),
                new Frame.Pong(node, epoch, 123_456_789L),
                new Frame.Disconnect(node, epoch));
    }

    /** What a gateway sends a node: the answer to a connect, deliveries, handover, the gateway list, errors. */
    public static List<Frame> fromGateway(UUID node, long epoch) {
        GatewayAddress other = new GatewayAddress("gw-2", "127.0.0.1", 5501);
        return List.of(
                new Frame.ConnectAck(node, epoch, "gw-1", 16 * 1024),
                new Frame.Data(node, epoch, 1, new Body.Delivery(new UUID(2, 1), "echo",
                        "answer".getBytes(StandardCharsets.UTF_8), 1_800_000_000_000L)),
                new Frame.Data(node, epoch, 2, new Body.Expired(new UUID(2, 2))),
                new Frame.Data(node, epoch, 3, new Body.Handover(other)),
                new Frame.Data(node, epoch, 4, new Body.GatewayList(List.of(
                        new GatewayAddress("gw-1", "127.0.0.1", 5500), other))),
                new Frame.Error(node, epoch, ErrorCode.BUSY, 0, "busy"));
    }

    public static byte[] encode(Frame frame) {
        ByteBuf buffer = FrameCodec.encode(frame, UnpooledByteBufAllocator.DEFAULT);
        try {
            return ByteBufUtil.getBytes(buffer);
        } finally {
            buffer.release();
        }
    }
}
