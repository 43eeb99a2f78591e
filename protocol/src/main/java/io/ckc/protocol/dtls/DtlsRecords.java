package io.ckc.protocol.dtls;

import io.netty.buffer.ByteBuf;

/**
 * What routing a datagram needs to know of the DTLS 1.2 records in it (RFC 6347 section 4.1, and RFC 9146 for records
 * that carry a connection ID): the content type, the epoch, and the connection ID. CKC's peers choose connection IDs of
 * {@value #CONNECTION_ID_BYTES} bytes, so a record's ID is read as one {@code long} at a fixed place.
 */
public final class DtlsRecords {

    /** Type, version, epoch, sequence number, length. */
    public static final int HEADER_BYTES = 13;
    public static final int CONNECTION_ID_BYTES = 8;
    /** Where a {@link #TLS12_CID} record's connection ID starts: after type, version, epoch and sequence number. */
    static final int CONNECTION_ID_OFFSET = 11;

    public static final int CHANGE_CIPHER_SPEC = 20;
    public static final int ALERT = 21;
    public static final int HANDSHAKE = 22;
    public static final int APPLICATION_DATA = 23;
    /** A record protected with a connection ID (RFC 9146). */
    public static final int TLS12_CID = 25;
    /** The handshake message types a ClientHello and a HelloVerifyRequest have (RFC 6347 4.3.2). */
    static final int CLIENT_HELLO = 1;
    static final int HELLO_VERIFY_REQUEST = 3;

    /** The most plaintext a record holds (2^14, RFC 6347 4.1.1), so the largest frame a DTLS session carries. */
    public static final int MAX_PLAINTEXT_BYTES = 1 << 14;
    /** The largest record a peer may send: header, connection ID, plaintext and the cipher's expansion (2^11 at most). */
    public static final int MAX_RECORD_BYTES = HEADER_BYTES + CONNECTION_ID_BYTES + MAX_PLAINTEXT_BYTES + 2048;

    private DtlsRecords() {
    }

    /** The first record's content type, or -1 when the datagram is too short to be a record. */
    public static int contentType(ByteBuf datagram) {
        return datagram.readableBytes() < HEADER_BYTES ? -1 : datagram.getUnsignedByte(datagram.readerIndex());
    }

    /** Whether the datagram starts like a DTLS record: a known content type and a DTLS version (1.0 or 1.2). */
    public static boolean isRecord(ByteBuf datagram) {
        int type = contentType(datagram);
        if (type < CHANGE_CIPHER_SPEC || type > TLS12_CID) {
            return false;
        }
        int major = datagram.getUnsignedByte(datagram.readerIndex() + 1);
        int minor = datagram.getUnsignedByte(datagram.readerIndex() + 2);
        return major == 0xFE && (minor == 0xFD || minor == 0xFF);
    }

    public static int epoch(ByteBuf datagram) {
        return datagram.getUnsignedShort(datagram.readerIndex() + 3);
    }

    /** The first record's sequence number (48 bits). */
    public static long sequenceNumber(ByteBuf datagram) {
        int at = datagram.readerIndex() + 5;
        return (long) datagram.getUnsignedShort(at) << 32 | datagram.getUnsignedInt(at + 2);
    }

    /** Whether the first record is a HelloVerifyRequest: a handshake record of epoch 0 whose message is of that type. */
    public static boolean isHelloVerifyRequest(ByteBuf datagram) {
        return handshakeType(datagram) == HELLO_VERIFY_REQUEST;
    }

    /** The type of the handshake message a plaintext handshake record (epoch 0) starts with, or -1. */
    static int handshakeType(ByteBuf datagram) {
        return contentType(datagram) == HANDSHAKE && epoch(datagram) == 0 && datagram.readableBytes() > HEADER_BYTES
                ? datagram.getUnsignedByte(datagram.readerIndex() + HEADER_BYTES) : -1;
    }

    /** Whether the first record carries a connection ID that {@link #connectionId} can read. */
    public static boolean hasConnectionId(ByteBuf datagram) {
        return contentType(datagram) == TLS12_CID
                && datagram.readableBytes() >= HEADER_BYTES + CONNECTION_ID_BYTES;
    }

    public static long connectionId(ByteBuf datagram) {
        return datagram.getLong(datagram.readerIndex() + CONNECTION_ID_OFFSET);
    }

    /** A connection ID as the handshake offers it. */
    static byte[] bytes(long connectionId) {
        byte[] id = new byte[CONNECTION_ID_BYTES];
        for (int i = CONNECTION_ID_BYTES - 1; i >= 0; i--) {
            id[i] = (byte) connectionId;
            connectionId >>>= 8;
        }
        return id;
    }
}
