package io.ckc.protocol.kafka;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.ReceiptBatch;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The binary form of the records every message crosses on its round trip ({@link AppMessage}, {@link Unicast},
 * {@link GatewayCommand}, {@link Receipt}, {@link ReceiptBatch}, {@link UnsentMessage}): a format byte, then the Protocol Buffers wire
 * format of {@code records.proto} beside this class, written and read field by field with protobuf-java's coded
 * streams, straight from and into the records: no generated classes, no intermediate objects, one copy of a payload.
 * Field numbers here and in {@code records.proto} are the same (BinaryRecordsTest reads the file); unknown fields
 * are skipped, absent ones are null (or zero), so either side may add fields.
 */
final class BinaryRecords {

    /** The first byte of a binary record; a JSON record starts with '{' (or white space). */
    static final byte FORMAT = 0x01;

    private static final int LEN = WireFormat.WIRETYPE_LENGTH_DELIMITED;
    private static final int VARINT = WireFormat.WIRETYPE_VARINT;
    private static final int FIXED64 = WireFormat.WIRETYPE_FIXED64;

    private BinaryRecords() {
    }

    /** Whether records of this type are written in binary. */
    static boolean writes(Object record) {
        return record instanceof AppMessage || record instanceof Unicast || record instanceof GatewayCommand
                || record instanceof Receipt || record instanceof ReceiptBatch || record instanceof UnsentMessage;
    }

    /** Whether a binary record can be read as this type. */
    static boolean reads(Class<?> type) {
        return type == AppMessage.class || type == Unicast.class || type == GatewayCommand.class
                || type == Receipt.class || type == ReceiptBatch.class || type == UnsentMessage.class;
    }

    static byte[] write(Object record) {
        try {
            if (record instanceof AppMessage m) {
                Sizes sizes = new Sizes();
                Out out = new Out(size(m, sizes));
                write(out.stream, m, sizes);
                return out.done();
            } else if (record instanceof Unicast u) {
                Out out = new Out(size(u));
                write(out.stream, u);
                return out.done();
            } else if (record instanceof Receipt r) {
                Out out = new Out(size(r));
                write(out.stream, r);
                return out.done();
            } else if (record instanceof ReceiptBatch b) {
                int[] sizes = b.receipts() == null ? new int[0] : b.receipts().stream().mapToInt(BinaryRecords::size).toArray();
                Out out = new Out(size(b, sizes));
                write(out.stream, b, sizes);
                return out.done();
            } else if (record instanceof UnsentMessage m) {
                int unicastSize = m.unicast() == null ? -1 : size(m.unicast());
                Out out = new Out(size(m, unicastSize));
                write(out.stream, m, unicastSize);
                return out.done();
            } else if (record instanceof GatewayCommand c) {
                return writeCommand(c);
            }
            throw new IllegalArgumentException("no binary form for " + record.getClass().getName());
        } catch (IOException e) {
            throw new IllegalStateException("a binary record outgrew the size computed for it", e);
        }
    }

    static <T> T read(byte[] bytes, Class<T> type) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(bytes, 1, bytes.length - 1);
        try {
            Object record;
            if (type == AppMessage.class) {
                record = readAppMessage(in);
            } else if (type == Unicast.class) {
                record = readUnicast(in);
            } else if (type == Receipt.class) {
                record = readReceipt(in);
            } else if (type == ReceiptBatch.class) {
                record = readReceiptBatch(bytes);
            } else if (type == UnsentMessage.class) {
                record = readUnsent(in);
            } else if (type == GatewayCommand.class) {
                record = readCommand(in);
            } else {
                throw new IOException("no binary form for " + type.getSimpleName());
            }
            return type.cast(record);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IOException("not a valid " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    // ---- writing --------------------------------------------------------------------------------------------

    /** A byte array of exactly the record's size, the format byte first. */
    private static final class Out {
        final byte[] bytes;
        final CodedOutputStream stream;

        Out(int size) {
            bytes = new byte[size + 1];
            bytes[0] = FORMAT;
            stream = CodedOutputStream.newInstance(bytes, 1, size);
        }

        byte[] done() {
            stream.checkNoSpaceLeft();
            return bytes;
        }
    }

    /** The sizes of an app message's nested context and its attributes, computed once. */
    private static final class Sizes {
        int context = -1;
        int[] attributes;
    }

    private static int size(AppMessage m, Sizes sizes) {
        if (m.context() != null) {
            sizes.context = size(m.context(), sizes);
        }
        return string(1, m.messageId()) + string(2, m.mnId()) + string(3, m.gatewayId()) + string(4, m.channel())
                + bytes(5, m.payload()) + nested(6, sizes.context) + int64(7, m.receivedAt())
                + optionalInt64(8, m.ttlMs()) + string(9, m.replyTo()) + bytes(10, m.correlation());
    }

    private static void write(CodedOutputStream out, AppMessage m, Sizes sizes) throws IOException {
        writeString(out, 1, m.messageId());
        writeString(out, 2, m.mnId());
        writeString(out, 3, m.gatewayId());
        writeString(out, 4, m.channel());
        writeBytes(out, 5, m.payload());
        if (m.context() != null) {
            writeHeader(out, 6, sizes.context);
            write(out, m.context(), sizes);
        }
        writeInt64(out, 7, m.receivedAt());
        writeOptionalInt64(out, 8, m.ttlMs());
        writeString(out, 9, m.replyTo());
        writeBytes(out, 10, m.correlation());
    }

    private static int size(Context c, Sizes sizes) {
        int size = optionalDouble(1, c.latitude()) + optionalDouble(2, c.longitude()) + optionalDouble(3, c.battery());
        sizes.attributes = new int[c.attributes().size()];
        int i = 0;
        for (Map.Entry<String, String> attribute : c.attributes().entrySet()) {
            sizes.attributes[i] = string(1, attribute.getKey()) + string(2, attribute.getValue());
            size += nested(4, sizes.attributes[i++]);
        }
        return size;
    }

    private static void write(CodedOutputStream out, Context c, Sizes sizes) throws IOException {
        writeOptionalDouble(out, 1, c.latitude());
        writeOptionalDouble(out, 2, c.longitude());
        writeOptionalDouble(out, 3, c.battery());
        int i = 0;
        for (Map.Entry<String, String> attribute : c.attributes().entrySet()) {
            writeHeader(out, 4, sizes.attributes[i++]);
            writeString(out, 1, attribute.getKey());
            writeString(out, 2, attribute.getValue());
        }
    }

    private static int size(Unicast u) {
        return string(1, u.messageId()) + string(2, u.sender()) + string(3, u.recipient()) + bytes(4, u.payload())
                + optionalInt64(5, u.ttlMs()) + int64(6, u.createdAt()) + bool(7, u.receipt()) + string(8, u.group())
                + string(9, u.replyTo()) + bytes(10, u.correlation());
    }

    private static void write(CodedOutputStream out, Unicast u) throws IOException {
        writeString(out, 1, u.messageId());
        writeString(out, 2, u.sender());
        writeString(out, 3, u.recipient());
        writeBytes(out, 4, u.payload());
        writeOptionalInt64(out, 5, u.ttlMs());
        writeInt64(out, 6, u.createdAt());
        if (u.receipt()) {
            out.writeBool(7, true);
        }
        writeString(out, 8, u.group());
        writeString(out, 9, u.replyTo());
        writeBytes(out, 10, u.correlation());
    }

    private static int size(Receipt r) {
        return string(1, r.messageId()) + string(2, r.sender()) + string(3, r.recipient())
                + enumValue(4, r.outcome() == null ? 0 : r.outcome().ordinal() + 1) + string(5, r.gatewayId())
                + string(6, r.detail()) + int64(7, r.timestamp());
    }

    private static void write(CodedOutputStream out, Receipt r) throws IOException {
        writeString(out, 1, r.messageId());
        writeString(out, 2, r.sender());
        writeString(out, 3, r.recipient());
        if (r.outcome() != null) {
            out.writeEnum(4, r.outcome().ordinal() + 1);
        }
        writeString(out, 5, r.gatewayId());
        writeString(out, 6, r.detail());
        writeInt64(out, 7, r.timestamp());
    }

    /** Its fields: 16 and 17, so that no field of a {@link Receipt} (1 to 7) is read as one of a batch's. */
    private static int size(ReceiptBatch b, int[] receiptSizes) {
        int size = string(16, b.gatewayId());
        for (int receiptSize : receiptSizes) {
            size += nested(17, receiptSize);
        }
        return size;
    }

    private static void write(CodedOutputStream out, ReceiptBatch b, int[] receiptSizes) throws IOException {
        writeString(out, 16, b.gatewayId());
        for (int i = 0; i < receiptSizes.length; i++) {
            writeHeader(out, 17, receiptSizes[i]);
            write(out, b.receipts().get(i));
        }
    }

    private static int size(UnsentMessage m, int unicastSize) {
        return nested(1, unicastSize) + string(2, m.gatewayId()) + int64(3, m.epoch())
                + enumValue(4, m.reason() == null ? 0 : m.reason().ordinal() + 1) + int64(5, m.timestamp())
                + bool(6, m.mayHaveArrived()) + bool(7, m.routed());
    }

    private static void write(CodedOutputStream out, UnsentMessage m, int unicastSize) throws IOException {
        if (m.unicast() != null) {
            writeHeader(out, 1, unicastSize);
            write(out, m.unicast());
        }
        writeString(out, 2, m.gatewayId());
        writeInt64(out, 3, m.epoch());
        if (m.reason() != null) {
            out.writeEnum(4, m.reason().ordinal() + 1);
        }
        writeInt64(out, 5, m.timestamp());
        if (m.mayHaveArrived()) {
            out.writeBool(6, true);
        }
        if (m.routed()) {
            out.writeBool(7, true);
        }
    }

    private static byte[] writeCommand(GatewayCommand command) throws IOException {
        if (command instanceof GatewayCommand.Deliver d) {
            int unicastSize = d.unicast() == null ? -1 : size(d.unicast());
            int deliverSize = nested(1, unicastSize) + int64(2, d.epoch()) + optionalInt64(3, d.expiresAt());
            Out out = new Out(nested(1, deliverSize));
            writeHeader(out.stream, 1, deliverSize);
            if (d.unicast() != null) {
                writeHeader(out.stream, 1, unicastSize);
                write(out.stream, d.unicast());
            }
            writeInt64(out.stream, 2, d.epoch());
            writeOptionalInt64(out.stream, 3, d.expiresAt());
            return out.done();
        } else if (command instanceof GatewayCommand.Handover h) {
            int targetSize = h.target() == null ? -1 : size(h.target());
            int handoverSize = string(1, h.mnId()) + nested(2, targetSize) + int64(3, h.round());
            Out out = new Out(nested(2, handoverSize));
            writeHeader(out.stream, 2, handoverSize);
            writeString(out.stream, 1, h.mnId());
            if (h.target() != null) {
                writeHeader(out.stream, 2, targetSize);
                write(out.stream, h.target());
            }
            writeInt64(out.stream, 3, h.round());
            return out.done();
        } else {
            GatewayCommand.ConfigurePing p = (GatewayCommand.ConfigurePing) command;
            int pingSize = int64(1, p.intervalMs()) + int64(2, p.windowMs());
            Out out = new Out(nested(3, pingSize));
            writeHeader(out.stream, 3, pingSize);
            writeInt64(out.stream, 1, p.intervalMs());
            writeInt64(out.stream, 2, p.windowMs());
            return out.done();
        }
    }

    private static int size(GatewayEndpoints g) {
        int size = string(1, g.gatewayId());
        for (Endpoint e : g.endpoints()) {
            size += nested(2, size(e));
        }
        return size;
    }

    private static void write(CodedOutputStream out, GatewayEndpoints g) throws IOException {
        writeString(out, 1, g.gatewayId());
        for (Endpoint e : g.endpoints()) {
            writeHeader(out, 2, size(e));
            writeString(out, 1, e.protocol());
            writeString(out, 2, e.host());
            if (e.port() != 0) {
                out.writeInt32(3, e.port());
            }
        }
    }

    private static int size(Endpoint e) {
        return string(1, e.protocol()) + string(2, e.host())
                + (e.port() == 0 ? 0 : CodedOutputStream.computeInt32Size(3, e.port()));
    }

    private static int string(int field, String value) {
        return value == null ? 0 : CodedOutputStream.computeStringSize(field, value);
    }

    private static int bytes(int field, byte[] value) {
        return value == null ? 0 : CodedOutputStream.computeByteArraySize(field, value);
    }

    private static int int64(int field, long value) {
        return value == 0 ? 0 : CodedOutputStream.computeInt64Size(field, value);
    }

    private static int optionalInt64(int field, Long value) {
        return value == null ? 0 : CodedOutputStream.computeInt64Size(field, value);
    }

    private static int optionalDouble(int field, Double value) {
        return value == null ? 0 : CodedOutputStream.computeDoubleSize(field, value);
    }

    private static int bool(int field, boolean value) {
        return value ? CodedOutputStream.computeBoolSize(field, true) : 0;
    }

    private static int enumValue(int field, int number) {
        return number == 0 ? 0 : CodedOutputStream.computeEnumSize(field, number);
    }

    /** The size of a nested message's field, or 0 for an absent one (size -1). */
    private static int nested(int field, int size) {
        return size < 0 ? 0 : CodedOutputStream.computeTagSize(field) + CodedOutputStream.computeUInt32SizeNoTag(size)
                + size;
    }

    private static void writeHeader(CodedOutputStream out, int field, int size) throws IOException {
        out.writeTag(field, LEN);
        out.writeUInt32NoTag(size);
    }

    private static void writeString(CodedOutputStream out, int field, String value) throws IOException {
        if (value != null) {
            out.writeString(field, value);
        }
    }

    private static void writeBytes(CodedOutputStream out, int field, byte[] value) throws IOException {
        if (value != null) {
            out.writeByteArray(field, value);
        }
    }

    private static void writeInt64(CodedOutputStream out, int field, long value) throws IOException {
        if (value != 0) {
            out.writeInt64(field, value);
        }
    }

    private static void writeOptionalInt64(CodedOutputStream out, int field, Long value) throws IOException {
        if (value != null) {
            out.writeInt64(field, value);
        }
    }

    private static void writeOptionalDouble(CodedOutputStream out, int field, Double value) throws IOException {
        if (value != null) {
            out.writeDouble(field, value);
        }
    }

    // ---- reading --------------------------------------------------------------------------------------------

    private static int tag(int field, int wireType) {
        return field << 3 | wireType; // the wire format's tag: field number, then three bits of wire type
    }

    private static final int T1_LEN = tag(1, LEN);
    private static final int T2_LEN = tag(2, LEN);
    private static final int T3_LEN = tag(3, LEN);
    private static final int T4_LEN = tag(4, LEN);
    private static final int T5_LEN = tag(5, LEN);
    private static final int T6_LEN = tag(6, LEN);
    private static final int T8_LEN = tag(8, LEN);
    private static final int T9_LEN = tag(9, LEN);
    private static final int T10_LEN = tag(10, LEN);

    private static AppMessage readAppMessage(CodedInputStream in) throws IOException {
        String messageId = null;
        String mnId = null;
        String gatewayId = null;
        String channel = null;
        byte[] payload = null;
        Context context = null;
        long receivedAt = 0;
        Long ttlMs = null;
        String replyTo = null;
        byte[] correlation = null;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == T1_LEN) {
                messageId = in.readStringRequireUtf8();
            } else if (tag == T2_LEN) {
                mnId = in.readStringRequireUtf8();
            } else if (tag == T3_LEN) {
                gatewayId = in.readStringRequireUtf8();
            } else if (tag == T4_LEN) {
                channel = in.readStringRequireUtf8();
            } else if (tag == T5_LEN) {
                payload = in.readByteArray();
            } else if (tag == T6_LEN) {
                int limit = in.pushLimit(in.readRawVarint32());
                context = readContext(in);
                in.popLimit(limit);
            } else if (tag == tag(7, VARINT)) {
                receivedAt = in.readInt64();
            } else if (tag == tag(8, VARINT)) {
                ttlMs = in.readInt64();
            } else if (tag == T9_LEN) {
                replyTo = in.readStringRequireUtf8();
            } else if (tag == T10_LEN) {
                correlation = in.readByteArray();
            } else {
                in.skipField(tag);
            }
        }
        return new AppMessage(messageId, mnId, gatewayId, channel, payload, context, receivedAt, ttlMs, replyTo,
                correlation);
    }

    private static Context readContext(CodedInputStream in) throws IOException {
        Double latitude = null;
        Double longitude = null;
        Double battery = null;
        Map<String, String> attributes = null;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == tag(1, FIXED64)) {
                latitude = in.readDouble();
            } else if (tag == tag(2, FIXED64)) {
                longitude = in.readDouble();
            } else if (tag == tag(3, FIXED64)) {
                battery = in.readDouble();
            } else if (tag == T4_LEN) {
                int limit = in.pushLimit(in.readRawVarint32());
                String key = "";
                String value = "";
                for (int entryTag = in.readTag(); entryTag != 0; entryTag = in.readTag()) {
                    if (entryTag == T1_LEN) {
                        key = in.readStringRequireUtf8();
                    } else if (entryTag == T2_LEN) {
                        value = in.readStringRequireUtf8();
                    } else {
                        in.skipField(entryTag);
                    }
                }
                in.popLimit(limit);
                if (attributes == null) {
                    attributes = new HashMap<>();
                }
                attributes.put(key, value);
            } else {
                in.skipField(tag);
            }
        }
        return new Context(latitude, longitude, battery, attributes);
    }

    private static Unicast readUnicast(CodedInputStream in) throws IOException {
        String messageId = null;
        String sender = null;
        String recipient = null;
        byte[] payload = null;
        Long ttlMs = null;
        long createdAt = 0;
        boolean receipt = false;
        String group = null;
        String replyTo = null;
        byte[] correlation = null;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == T1_LEN) {
                messageId = in.readStringRequireUtf8();
            } else if (tag == T2_LEN) {
                sender = in.readStringRequireUtf8();
            } else if (tag == T3_LEN) {
                recipient = in.readStringRequireUtf8();
            } else if (tag == T4_LEN) {
                payload = in.readByteArray();
            } else if (tag == tag(5, VARINT)) {
                ttlMs = in.readInt64();
            } else if (tag == tag(6, VARINT)) {
                createdAt = in.readInt64();
            } else if (tag == tag(7, VARINT)) {
                receipt = in.readBool();
            } else if (tag == T8_LEN) {
                group = in.readStringRequireUtf8();
            } else if (tag == T9_LEN) {
                replyTo = in.readStringRequireUtf8();
            } else if (tag == T10_LEN) {
                correlation = in.readByteArray();
            } else {
                in.skipField(tag);
            }
        }
        return new Unicast(messageId, sender, recipient, payload, ttlMs, createdAt, receipt, group, replyTo,
                correlation);
    }

    private static Unicast readNestedUnicast(CodedInputStream in) throws IOException {
        int limit = in.pushLimit(in.readRawVarint32());
        Unicast unicast = readUnicast(in);
        in.popLimit(limit);
        return unicast;
    }

    private static Receipt readReceipt(CodedInputStream in) throws IOException {
        String messageId = null;
        String sender = null;
        String recipient = null;
        Receipt.Outcome outcome = null;
        String gatewayId = null;
        String detail = null;
        long timestamp = 0;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == T1_LEN) {
                messageId = in.readStringRequireUtf8();
            } else if (tag == T2_LEN) {
                sender = in.readStringRequireUtf8();
            } else if (tag == T3_LEN) {
                recipient = in.readStringRequireUtf8();
            } else if (tag == tag(4, VARINT)) {
                outcome = enumOf(Receipt.Outcome.values(), in.readEnum(), "outcome");
            } else if (tag == T5_LEN) {
                gatewayId = in.readStringRequireUtf8();
            } else if (tag == T6_LEN) {
                detail = in.readStringRequireUtf8();
            } else if (tag == tag(7, VARINT)) {
                timestamp = in.readInt64();
            } else {
                in.skipField(tag);
            }
        }
        return new Receipt(messageId, sender, recipient, outcome, gatewayId, detail, timestamp);
    }

    /**
     * A batch; a record whose first field is one of a {@link Receipt}'s (a gateway before batching wrote one receipt a
     * record) is read as a batch of that one.
     */
    private static ReceiptBatch readReceiptBatch(byte[] bytes) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(bytes, 1, bytes.length - 1);
        int first = in.readTag();
        if (first != 0 && WireFormat.getTagFieldNumber(first) < 16) {
            return new ReceiptBatch(null, List.of(readReceipt(CodedInputStream.newInstance(bytes, 1, bytes.length - 1))));
        }
        String gatewayId = null;
        List<Receipt> receipts = new ArrayList<>();
        for (int tag = first; tag != 0; tag = in.readTag()) {
            if (tag == tag(16, LEN)) {
                gatewayId = in.readStringRequireUtf8();
            } else if (tag == tag(17, LEN)) {
                int limit = in.pushLimit(in.readRawVarint32());
                receipts.add(readReceipt(in));
                in.popLimit(limit);
            } else {
                in.skipField(tag);
            }
        }
        return new ReceiptBatch(gatewayId, receipts);
    }

    private static UnsentMessage readUnsent(CodedInputStream in) throws IOException {
        Unicast unicast = null;
        String gatewayId = null;
        long epoch = 0;
        UnsentMessage.Reason reason = null;
        long timestamp = 0;
        boolean mayHaveArrived = false;
        boolean routed = false;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == T1_LEN) {
                unicast = readNestedUnicast(in);
            } else if (tag == T2_LEN) {
                gatewayId = in.readStringRequireUtf8();
            } else if (tag == tag(3, VARINT)) {
                epoch = in.readInt64();
            } else if (tag == tag(4, VARINT)) {
                reason = enumOf(UnsentMessage.Reason.values(), in.readEnum(), "reason");
            } else if (tag == tag(5, VARINT)) {
                timestamp = in.readInt64();
            } else if (tag == tag(6, VARINT)) {
                mayHaveArrived = in.readBool();
            } else if (tag == tag(7, VARINT)) {
                routed = in.readBool();
            } else {
                in.skipField(tag);
            }
        }
        return new UnsentMessage(unicast, gatewayId, epoch, reason, timestamp, mayHaveArrived, routed);
    }

    private static GatewayCommand readCommand(CodedInputStream in) throws IOException {
        GatewayCommand command = null;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == T1_LEN || tag == T2_LEN || tag == T3_LEN) {
                int limit = in.pushLimit(in.readRawVarint32());
                command = tag == T1_LEN ? readDeliver(in) : tag == T2_LEN ? readHandover(in) : readPingConfig(in);
                in.popLimit(limit);
            } else {
                in.skipField(tag);
            }
        }
        if (command == null) {
            throw new IOException("a gateway command that names no command this gateway knows");
        }
        return command;
    }

    private static GatewayCommand.Deliver readDeliver(CodedInputStream in) throws IOException {
        Unicast unicast = null;
        long epoch = 0;
        Long expiresAt = null;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == T1_LEN) {
                unicast = readNestedUnicast(in);
            } else if (tag == tag(2, VARINT)) {
                epoch = in.readInt64();
            } else if (tag == tag(3, VARINT)) {
                expiresAt = in.readInt64();
            } else {
                in.skipField(tag);
            }
        }
        return new GatewayCommand.Deliver(unicast, epoch, expiresAt);
    }

    private static GatewayCommand.Handover readHandover(CodedInputStream in) throws IOException {
        String mnId = null;
        GatewayEndpoints target = null;
        long round = 0;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == T1_LEN) {
                mnId = in.readStringRequireUtf8();
            } else if (tag == T2_LEN) {
                int limit = in.pushLimit(in.readRawVarint32());
                target = readEndpoints(in);
                in.popLimit(limit);
            } else if (tag == tag(3, VARINT)) {
                round = in.readInt64();
            } else {
                in.skipField(tag);
            }
        }
        return new GatewayCommand.Handover(mnId, target, round);
    }

    private static GatewayEndpoints readEndpoints(CodedInputStream in) throws IOException {
        String gatewayId = null;
        List<Endpoint> endpoints = new ArrayList<>();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == T1_LEN) {
                gatewayId = in.readStringRequireUtf8();
            } else if (tag == T2_LEN) {
                int limit = in.pushLimit(in.readRawVarint32());
                String protocol = null;
                String host = null;
                int port = 0;
                for (int field = in.readTag(); field != 0; field = in.readTag()) {
                    if (field == T1_LEN) {
                        protocol = in.readStringRequireUtf8();
                    } else if (field == T2_LEN) {
                        host = in.readStringRequireUtf8();
                    } else if (field == tag(3, VARINT)) {
                        port = in.readInt32();
                    } else {
                        in.skipField(field);
                    }
                }
                in.popLimit(limit);
                endpoints.add(new Endpoint(protocol, host, port));
            } else {
                in.skipField(tag);
            }
        }
        return new GatewayEndpoints(gatewayId, endpoints);
    }

    private static GatewayCommand.ConfigurePing readPingConfig(CodedInputStream in) throws IOException {
        long intervalMs = 0;
        long windowMs = 0;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == tag(1, VARINT)) {
                intervalMs = in.readInt64();
            } else if (tag == tag(2, VARINT)) {
                windowMs = in.readInt64();
            } else {
                in.skipField(tag);
            }
        }
        return new GatewayCommand.ConfigurePing(intervalMs, windowMs);
    }

    /** Enum number n (1-based; 0 is "unspecified", read as null) of a Java enum listed in the .proto's order. */
    private static <E extends Enum<E>> E enumOf(E[] values, int number, String what) throws IOException {
        if (number == 0) {
            return null;
        }
        if (number < 0 || number > values.length) {
            throw new IOException("unknown " + what + " " + number);
        }
        return values[number - 1];
    }
}
