package io.ckc.protocol.frame;

import io.ckc.protocol.records.Context;
import io.ckc.protocol.netty.AddressedFrame;
import io.ckc.protocol.netty.FrameDatagramDecoder;
import io.ckc.protocol.netty.FrameDatagramEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertFalse;

class FrameCodecTest {

    private static final UUID MN = UUID.randomUUID();
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 40000);

    static List<Frame> everyKindOfFrame() {
        Context full = new Context(-22.9, -43.2, 0.75, Map.of("speed", "12", "mode", "walk"));
        return List.of(
                new Frame.Connect(MN, 7),
                new Frame.ConnectAck(MN, 7, "gw-1", 16_384),
                new Frame.Data(MN, 7, 1, new Body.MnMessage(UUID.randomUUID(), "echo", full, new byte[] {1, 2, 3})),
                new Frame.Data(MN, 7, 2, new Body.MnMessage(UUID.randomUUID(), "echo", null, new byte[0])),
                new Frame.Data(MN, 7, 3, new Body.MnMessage(UUID.randomUUID(), "echo",
                        new Context(null, null, 0.5, Map.of()), "hé".getBytes())),
                new Frame.Data(MN, 7, 7, new Body.MnGroupcast(UUID.randomUUID(), "grid/cell-3-4", full, new byte[] {9})),
                new Frame.Data(MN, 7, 8, new Body.MnGroupcast(UUID.randomUUID(), "sql-battery/low", null, new byte[0])),
                new Frame.Data(MN, 7, Integer.MAX_VALUE, new Body.Delivery(UUID.randomUUID(), "app-çé", new byte[100])),
                new Frame.Data(MN, 7, 10, new Body.Delivery(UUID.randomUUID(), "app", new byte[] {4},
                        System.currentTimeMillis() + 15_000)),
                new Frame.Data(MN, 7, 9, new Body.Expired(UUID.randomUUID())),
                new Frame.Data(MN, 7, 4, new Body.Handover(new GatewayAddress("gw-2", "10.0.0.2", 5501))),
                new Frame.Data(MN, 7, 5, new Body.GatewayList(List.of(new GatewayAddress("gw-2", "10.0.0.2", 5501),
                        new GatewayAddress("gw-1", "gateway-1.example", 5500)))),
                new Frame.Data(MN, 7, 6, new Body.GatewayList(List.of())),
                new Frame.Ack(MN, 7, 42),
                new Frame.Ping(MN, 7, 123_456_789L),
                new Frame.Pong(MN, 7, 123_456_789L),
                new Frame.Disconnect(MN, 7),
                new Frame.Error(MN, 7, ErrorCode.PAYLOAD_TOO_LARGE, 9, "payload of 70000 bytes exceeds 16384"),
                new Frame.Error(MN, 7, ErrorCode.EXPIRED, 9, "expired before it arrived"));
    }

    @Test
    void everyFrameRoundTripsThroughTheCodec() throws Exception {
        for (Frame frame : everyKindOfFrame()) {
            ByteBuf encoded = FrameCodec.encode(frame, ByteBufAllocator.DEFAULT);
            try {
                assertThat(FrameCodec.decode(encoded)).isEqualTo(frame);
                assertThat(encoded.isReadable()).isFalse();
            } finally {
                encoded.release();
            }
        }
    }

    @Test
    void everyTruncationOfAFrameIsRejectedAsMalformed() {
        for (Frame frame : everyKindOfFrame()) {
            ByteBuf encoded = FrameCodec.encode(frame, ByteBufAllocator.DEFAULT);
            try {
                for (int length = 0; length < encoded.readableBytes(); length++) {
                    ByteBuf prefix = encoded.slice(0, length);
                    assertThatThrownBy(() -> FrameCodec.decode(prefix))
                            .as("%s cut at %d bytes", frame.type(), length)
                            .isInstanceOf(MalformedFrameException.class);
                }
            } finally {
                encoded.release();
            }
        }
    }

    @Test
    void badMagicVersionTypeAndTrailingBytesAreNamed() {
        assertReason(bytes(0x00, 1, 1), MalformedFrameException.Reason.BAD_MAGIC);
        assertReason(bytes(0xCC, 9, 1), MalformedFrameException.Reason.UNSUPPORTED_VERSION);
        assertReason(bytes(0xCC, 1, 99), MalformedFrameException.Reason.UNKNOWN_TYPE);
        ByteBuf withTrailer = FrameCodec.encode(new Frame.Ack(MN, 1, 1), ByteBufAllocator.DEFAULT).writeByte(0);
        assertThatThrownBy(() -> FrameCodec.decode(withTrailer)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("trailing");
        withTrailer.release();
    }

    @Test
    void aDeliverysDeadlineTravelsAsTheTimeLeftSoTheReceiversClockSetsIt() throws Exception {
        long before = System.currentTimeMillis();
        Body.Delivery timed = decodedDelivery(new Body.Delivery(MN, "app", new byte[0], before + 5_000));
        assertThat(timed.expiresAtMs()).isBetween(before + 4_000, System.currentTimeMillis() + 5_000);
        assertThat(timed.expiredAt(System.currentTimeMillis())).isFalse();

        Body.Delivery late = decodedDelivery(new Body.Delivery(MN, "app", new byte[0], before - 1_000));
        assertThat(late.expiredAt(System.currentTimeMillis())).as("no time left: past its deadline on arrival").isTrue();

        Body.Delivery timeless = decodedDelivery(new Body.Delivery(MN, "app", new byte[0]));
        assertThat(timeless.expiresAtMs()).isEqualTo(Body.Delivery.NO_DEADLINE);
        assertThat(timeless.expiredAt(Long.MAX_VALUE - 1)).isFalse();

        ByteBuf frame = FrameCodec.encode(new Frame.Data(MN, 1, 1, new Body.Delivery(MN, "s", new byte[0], before + 1)),
                ByteBufAllocator.DEFAULT);
        frame.setInt(frame.writerIndex() - 4, -1); // 4,294,967,295 ms left: not a TTL
        assertThatThrownBy(() -> FrameCodec.decode(frame)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("time left");
        frame.release();
    }

    private static Body.Delivery decodedDelivery(Body.Delivery delivery) throws Exception {
        ByteBuf encoded = FrameCodec.encode(new Frame.Data(MN, 1, 1, delivery), ByteBufAllocator.DEFAULT);
        try {
            return (Body.Delivery) ((Frame.Data) FrameCodec.decode(encoded)).body();
        } finally {
            encoded.release();
        }
    }

    @Test
    void aPayloadLengthBeyondTheDatagramLimitIsOversize() {
        ByteBuf frame = FrameCodec.encode(new Frame.Data(MN, 1, 1, new Body.Delivery(MN, "s", new byte[4])),
                ByteBufAllocator.DEFAULT);
        frame.setInt(frame.writerIndex() - 8, 1_000_000); // the payload length field
        assertThatThrownBy(() -> FrameCodec.decode(frame))
                .isInstanceOfSatisfying(MalformedFrameException.class,
                        e -> assertThat(e.reason()).isEqualTo(MalformedFrameException.Reason.OVERSIZE));
        frame.release();
    }

    @Test
    void aStringThatIsNotUtf8IsRefusedNotDecodedToReplacementCharacters() {
        // found by the frame-codec fuzz target: 0xFF decoded to U+FFFD (three bytes), so a 255-byte gateway id
        // decoded to a string that could not be encoded again
        ByteBuf frame = FrameCodec.encode(new Frame.ConnectAck(MN, 1, "gw-1", 1024), ByteBufAllocator.DEFAULT);
        frame.setByte(FrameCodec.HEADER_BYTES + 1, 0xFF); // the first byte of the gateway id
        assertReason(frame, MalformedFrameException.Reason.BAD_FIELD);
        frame.release();
    }

    @Test
    void theDatagramPipelineDropsAndCountsMalformedDatagramsAndPassesGoodOnes() {
        List<MalformedFrameException> dropped = new ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel(
                FrameDatagramEncoder.INSTANCE, new FrameDatagramDecoder((sender, error) -> dropped.add(error)));

        Frame good = new Frame.Ping(MN, 3, 99);
        channel.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), PEER, PEER));
        channel.writeInbound(new DatagramPacket(FrameCodec.encode(good, ByteBufAllocator.DEFAULT), PEER, PEER));

        assertThat(dropped).hasSize(1);
        AddressedFrame received = channel.readInbound();
        assertThat(received).isEqualTo(new AddressedFrame(good, PEER));
        assertThat((Object) channel.readInbound()).isNull();

        channel.writeOutbound(new AddressedFrame(good, PEER));
        DatagramPacket out = channel.readOutbound();
        assertThat(out.recipient()).isEqualTo(PEER);
        out.release();
        assertFalse(channel.finish());
    }

    private static ByteBuf bytes(int magic, int version, int type) {
        ByteBuf buf = Unpooled.buffer(FrameCodec.HEADER_BYTES);
        buf.writeByte(magic).writeByte(version).writeByte(type).writeByte(0).writeZero(24);
        return buf;
    }

    private static void assertReason(ByteBuf buf, MalformedFrameException.Reason reason) {
        assertThatThrownBy(() -> FrameCodec.decode(buf))
                .isInstanceOfSatisfying(MalformedFrameException.class, e -> assertThat(e.reason()).isEqualTo(reason));
    }
}
