package io.ckc.protocol.frame;

import io.ckc.protocol.records.Context;
import io.ckc.protocol.frame.MalformedFrameException.Reason;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Binary encoding of {@link Frame}s, big-endian. Header (28 bytes): magic {@code 0xCC}, version,
 * type, flags, mobile node id (16), epoch (8); then a type-specific body. Strings are UTF-8 with a
 * length prefix; payloads carry a 32-bit length.
 */
public final class FrameCodec {

    public static final int MAGIC = 0xCC;
    public static final int VERSION = 1;
    public static final int HEADER_BYTES = 28;
    /** The largest datagram a frame may occupy (the IPv4 UDP limit). */
    public static final int MAX_DATAGRAM_BYTES = 65_507;

    private static final int BODY_MN_MESSAGE = 1;
    private static final int BODY_DELIVERY = 2;
    private static final int BODY_HANDOVER = 3;
    private static final int BODY_GATEWAY_LIST = 4;
    private static final int BODY_MN_GROUPCAST = 5;
    private static final int BODY_EXPIRED = 6;
    /** A delivery with a deadline: as {@link #BODY_DELIVERY}, then the milliseconds it has left (u32). */
    private static final int BODY_TIMED_DELIVERY = 7;
    /** More gateways than a list frame may name: the list is for the best few, not the whole fleet. */
    public static final int MAX_LISTED_GATEWAYS = 255;
    private static final int CONTEXT_POSITION = 1;
    private static final int CONTEXT_BATTERY = 2;
    private static final int CONTEXT_ATTRIBUTES = 4;

    private FrameCodec() {
    }

    public static ByteBuf encode(Frame frame, ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(HEADER_BYTES + 64);
        try {
            encode(frame, out);
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }

    public static void encode(Frame frame, ByteBuf out) {
        out.writeByte(MAGIC).writeByte(VERSION).writeByte(frame.type().code()).writeByte(0);
        writeUuid(out, frame.mnId());
        out.writeLong(frame.epoch());
        if (frame instanceof Frame.ConnectAck a) {
            writeString8(out, a.gatewayId());
            out.writeInt(a.maxPayloadBytes());
        } else if (frame instanceof Frame.Data d) {
            out.writeInt(d.seq());
            writeBody(out, d.body());
        } else if (frame instanceof Frame.Ack a) {
            out.writeInt(a.seq());
        } else if (frame instanceof Frame.Ping p) {
            out.writeLong(p.timestamp());
        } else if (frame instanceof Frame.Pong p) {
            out.writeLong(p.timestamp());
        } else if (frame instanceof Frame.Error e) {
            out.writeByte(e.code().code());
            out.writeInt(e.seq());
            writeString16(out, e.message() == null ? "" : e.message());
        }
        // Connect and Disconnect have no body.
    }

    /** Decodes one datagram; the buffer's reader index is advanced, ownership stays with the caller. */
    public static Frame decode(ByteBuf in) throws MalformedFrameException {
        need(in, HEADER_BYTES, "header");
        int magic = in.readUnsignedByte();
        if (magic != MAGIC) {
            throw new MalformedFrameException(Reason.BAD_MAGIC, "bad magic 0x" + Integer.toHexString(magic));
        }
        int version = in.readUnsignedByte();
        if (version != VERSION) {
            throw new MalformedFrameException(Reason.UNSUPPORTED_VERSION, "unsupported version " + version);
        }
        int code = in.readUnsignedByte();
        FrameType type = FrameType.ofCode(code);
        if (type == null) {
            throw new MalformedFrameException(Reason.UNKNOWN_TYPE, "unknown frame type " + code);
        }
        in.skipBytes(1); // flags, reserved
        UUID mnId = readUuid(in);
        long epoch = in.readLong();
        Frame frame = switch (type) {
            case CONNECT -> new Frame.Connect(mnId, epoch);
            case DISCONNECT -> new Frame.Disconnect(mnId, epoch);
            case CONNECT_ACK -> new Frame.ConnectAck(mnId, epoch, readString8(in), readInt(in, "max payload"));
            case DATA -> new Frame.Data(mnId, epoch, readInt(in, "seq"), readBody(in));
            case ACK -> new Frame.Ack(mnId, epoch, readInt(in, "seq"));
            case PING -> new Frame.Ping(mnId, epoch, readLong(in, "timestamp"));
            case PONG -> new Frame.Pong(mnId, epoch, readLong(in, "timestamp"));
            case ERROR -> {
                need(in, 1, "error code");
                int errorCode = in.readUnsignedByte();
                ErrorCode error = ErrorCode.ofCode(errorCode);
                if (error == null) {
                    throw new MalformedFrameException(Reason.BAD_FIELD, "unknown error code " + errorCode);
                }
                yield new Frame.Error(mnId, epoch, error, readInt(in, "seq"), readString16(in));
            }
        };
        if (in.isReadable()) {
            throw new MalformedFrameException(Reason.BAD_FIELD, in.readableBytes() + " trailing bytes after " + type);
        }
        return frame;
    }

    private static void writeBody(ByteBuf out, Body body) {
        if (body instanceof Body.MnMessage m) {
            out.writeByte(BODY_MN_MESSAGE);
            writeUuid(out, m.messageId());
            writeString8(out, m.channel());
            writeContext(out, m.context());
            writeBytes(out, m.payload());
        } else if (body instanceof Body.MnGroupcast g) {
            out.writeByte(BODY_MN_GROUPCAST);
            writeUuid(out, g.messageId());
            writeString16(out, g.group());
            writeContext(out, g.context());
            writeBytes(out, g.payload());
        } else if (body instanceof Body.Delivery d) {
            out.writeByte(d.expiresAtMs() == Body.Delivery.NO_DEADLINE ? BODY_DELIVERY : BODY_TIMED_DELIVERY);
            writeUuid(out, d.messageId());
            writeString16(out, d.sender());
            writeBytes(out, d.payload());
            if (d.expiresAtMs() != Body.Delivery.NO_DEADLINE) {
                // The time left as the frame leaves (a copy sent again has less): clocks need not agree.
                out.writeInt((int) Math.max(0, Math.min(Integer.MAX_VALUE, d.expiresAtMs() - System.currentTimeMillis())));
            }
        } else if (body instanceof Body.Expired e) {
            out.writeByte(BODY_EXPIRED);
            writeUuid(out, e.messageId());
        } else if (body instanceof Body.Handover h) {
            out.writeByte(BODY_HANDOVER);
            writeGatewayAddress(out, h.target());
        } else if (body instanceof Body.GatewayList l) {
            out.writeByte(BODY_GATEWAY_LIST);
            int count = Math.min(l.gateways().size(), MAX_LISTED_GATEWAYS);
            out.writeByte(count);
            for (int i = 0; i < count; i++) {
                writeGatewayAddress(out, l.gateways().get(i));
            }
        }
    }

    private static void writeGatewayAddress(ByteBuf out, GatewayAddress address) {
        writeString8(out, address.gatewayId());
        writeString8(out, address.host());
        out.writeShort(address.port());
    }

    private static GatewayAddress readGatewayAddress(ByteBuf in) throws MalformedFrameException {
        String gatewayId = readString8(in);
        String host = readString8(in);
        need(in, 2, "port");
        int port = in.readUnsignedShort();
        if (port == 0) {
            throw new MalformedFrameException(Reason.BAD_FIELD, "gateway port 0");
        }
        return new GatewayAddress(gatewayId, host, port);
    }

    private static Body.GatewayList readGatewayList(ByteBuf in) throws MalformedFrameException {
        need(in, 1, "gateway count");
        int count = in.readUnsignedByte();
        List<GatewayAddress> gateways = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            gateways.add(readGatewayAddress(in));
        }
        return new Body.GatewayList(gateways);
    }

    private static Body.Delivery readTimedDelivery(ByteBuf in) throws MalformedFrameException {
        UUID messageId = readUuid(in);
        String sender = readString16(in);
        byte[] payload = readBytes(in);
        need(in, 4, "time left");
        long leftMs = in.readUnsignedInt();
        if (leftMs > Integer.MAX_VALUE) {
            throw new MalformedFrameException(Reason.BAD_FIELD, "time left " + leftMs + " ms");
        }
        return new Body.Delivery(messageId, sender, payload, System.currentTimeMillis() + leftMs);
    }

    private static Body readBody(ByteBuf in) throws MalformedFrameException {
        need(in, 1, "body kind");
        int kind = in.readUnsignedByte();
        return switch (kind) {
            case BODY_MN_MESSAGE -> new Body.MnMessage(readUuid(in), readString8(in), readContext(in), readBytes(in));
            case BODY_MN_GROUPCAST -> new Body.MnGroupcast(readUuid(in), readString16(in), readContext(in), readBytes(in));
            case BODY_DELIVERY -> new Body.Delivery(readUuid(in), readString16(in), readBytes(in));
            case BODY_TIMED_DELIVERY -> readTimedDelivery(in);
            case BODY_EXPIRED -> new Body.Expired(readUuid(in));
            case BODY_HANDOVER -> new Body.Handover(readGatewayAddress(in));
            case BODY_GATEWAY_LIST -> readGatewayList(in);
            default -> throw new MalformedFrameException(Reason.BAD_FIELD, "unknown body kind " + kind);
        };
    }

    private static void writeContext(ByteBuf out, Context context) {
        if (context == null) {
            out.writeByte(0);
            return;
        }
        int flags = (context.latitude() != null && context.longitude() != null ? CONTEXT_POSITION : 0)
                | (context.battery() != null ? CONTEXT_BATTERY : 0)
                | (context.attributes().isEmpty() ? 0 : CONTEXT_ATTRIBUTES);
        out.writeByte(0x80 | flags); // high bit: context present, even if empty
        if ((flags & CONTEXT_POSITION) != 0) {
            out.writeDouble(context.latitude()).writeDouble(context.longitude());
        }
        if ((flags & CONTEXT_BATTERY) != 0) {
            out.writeDouble(context.battery());
        }
        if ((flags & CONTEXT_ATTRIBUTES) != 0) {
            out.writeShort(context.attributes().size());
            context.attributes().forEach((k, v) -> {
                writeString16(out, k);
                writeString16(out, v);
            });
        }
    }

    private static Context readContext(ByteBuf in) throws MalformedFrameException {
        need(in, 1, "context flags");
        int flags = in.readUnsignedByte();
        if (flags == 0) {
            return null;
        }
        Double latitude = null;
        Double longitude = null;
        Double battery = null;
        Map<String, String> attributes = Map.of();
        if ((flags & CONTEXT_POSITION) != 0) {
            latitude = readDouble(in, "latitude");
            longitude = readDouble(in, "longitude");
        }
        if ((flags & CONTEXT_BATTERY) != 0) {
            battery = readDouble(in, "battery");
        }
        if ((flags & CONTEXT_ATTRIBUTES) != 0) {
            need(in, 2, "attribute count");
            int count = in.readUnsignedShort();
            Map<String, String> read = new HashMap<>(count * 2);
            for (int i = 0; i < count; i++) {
                read.put(readString16(in), readString16(in));
            }
            attributes = read;
        }
        return new Context(latitude, longitude, battery, attributes);
    }

    private static void writeUuid(ByteBuf out, UUID id) {
        out.writeLong(id.getMostSignificantBits()).writeLong(id.getLeastSignificantBits());
    }

    private static UUID readUuid(ByteBuf in) throws MalformedFrameException {
        need(in, 16, "id");
        return new UUID(in.readLong(), in.readLong());
    }

    private static void writeString8(ByteBuf out, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 255) {
            throw new IllegalArgumentException("string longer than 255 bytes: " + value);
        }
        out.writeByte(bytes.length).writeBytes(bytes);
    }

    private static void writeString16(ByteBuf out, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 65_535) {
            throw new IllegalArgumentException("string longer than 65535 bytes");
        }
        out.writeShort(bytes.length).writeBytes(bytes);
    }

    private static String readString8(ByteBuf in) throws MalformedFrameException {
        need(in, 1, "string length");
        return readUtf8(in, in.readUnsignedByte());
    }

    private static String readString16(ByteBuf in) throws MalformedFrameException {
        need(in, 2, "string length");
        return readUtf8(in, in.readUnsignedShort());
    }

    /**
     * A string of {@code length} bytes, refused unless they are UTF-8: decoding bad bytes to replacement characters
     * would give a string that is not what was sent and may no longer fit its length field.
     */
    private static String readUtf8(ByteBuf in, int length) throws MalformedFrameException {
        need(in, length, "string");
        if (!ByteBufUtil.isText(in, in.readerIndex(), length, StandardCharsets.UTF_8)) {
            throw new MalformedFrameException(Reason.BAD_FIELD, "a string of " + length + " bytes that is not UTF-8");
        }
        return in.readCharSequence(length, StandardCharsets.UTF_8).toString();
    }

    private static void writeBytes(ByteBuf out, byte[] bytes) {
        out.writeInt(bytes.length).writeBytes(bytes);
    }

    private static byte[] readBytes(ByteBuf in) throws MalformedFrameException {
        int length = readInt(in, "payload length");
        if (length < 0 || length > MAX_DATAGRAM_BYTES) {
            throw new MalformedFrameException(Reason.OVERSIZE, "payload length " + length + " out of range");
        }
        need(in, length, "payload");
        byte[] bytes = new byte[length];
        in.readBytes(bytes);
        return bytes;
    }

    private static int readInt(ByteBuf in, String what) throws MalformedFrameException {
        need(in, 4, what);
        return in.readInt();
    }

    private static long readLong(ByteBuf in, String what) throws MalformedFrameException {
        need(in, 8, what);
        return in.readLong();
    }

    private static double readDouble(ByteBuf in, String what) throws MalformedFrameException {
        need(in, 8, what);
        return in.readDouble();
    }

    private static void need(ByteBuf in, int bytes, String what) throws MalformedFrameException {
        if (in.readableBytes() < bytes) {
            throw new MalformedFrameException(Reason.TRUNCATED,
                    "truncated " + what + ": need " + bytes + " bytes, have " + in.readableBytes());
        }
    }
}
