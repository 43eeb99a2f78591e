package io.ckc.protocol.dtls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.util.Arrays;

/**
 * The records of an established session once the handshake is behind both ends: DTLS 1.2 records with a connection
 * ID (RFC 9146), sealed with the AES-GCM keys the handshake agreed (RFC 5288: a 4-byte salt from the key block, the
 * record's epoch and sequence number as the explicit nonce), checked against a 64-record replay window (RFC 6347
 * 4.1.2.6). The same bytes Bouncy Castle's record layer writes and reads, so either end may still use that one.
 * <p>Why our own: Bouncy Castle's record layer stays ready for a handshake for the session's life (its context, the
 * security parameters, epochs, queues and locks), about 2.5 KB of heap per node besides its buffers, which a gateway
 * holding a million idle nodes pays a million times. This holds the two keys, the two salts, two sequence numbers and
 * the replay window: about 120 bytes. It takes over when the peer's first data record arrives (the proof that the
 * peer has every handshake message it needs, so no retransmission of ours will be asked for), and only for AES-GCM.
 * <p>Used by one thread at a time (the event loop that owns the session).
 */
final class SessionRecords {

    /** The one epoch after the handshake: a CKC session never renegotiates. */
    static final int EPOCH = 1;
    private static final int KEY_BYTES = 16;
    private static final int SALT_BYTES = RecordCipher.SALT_BYTES;
    private static final int EXPLICIT_NONCE_BYTES = 8;
    private static final int TAG_BYTES = 16;
    /** The header of a record with a connection ID: type, version, epoch, sequence number, connection ID, length. */
    private static final int HEADER_BYTES = DtlsRecords.HEADER_BYTES + DtlsRecords.CONNECTION_ID_BYTES;
    private static final int SEQUENCE_OFFSET = 5;
    private static final int LENGTH_OFFSET = HEADER_BYTES - 2;
    /** RFC 9146 section 5: the additional data of a record with a connection ID. */
    private static final int AAD_BYTES = 8 + 1 + 1 + 1 + 2 + 2 + 6 + DtlsRecords.CONNECTION_ID_BYTES + 2;
    private static final int REPLAY_WINDOW = 64;
    private static final int ALERT_WARNING = 1;
    private static final int CLOSE_NOTIFY = 0;

    private static final ThreadLocal<byte[]> AAD = ThreadLocal.withInitial(() -> new byte[AAD_BYTES]);
    private static final ThreadLocal<byte[]> NONCE = ThreadLocal.withInitial(() -> new byte[SALT_BYTES + EXPLICIT_NONCE_BYTES]);
    /** The thread's copy of a record from a buffer without an array, and the plaintext it opens to. */
    private static final ThreadLocal<byte[][]> SCRATCH = ThreadLocal.withInitial(() -> new byte[][] {
            new byte[DtlsRecords.MAX_RECORD_BYTES], new byte[DtlsRecords.MAX_RECORD_BYTES]});

    /** The write key, the read key, the write salt, the read salt. */
    private final byte[] secrets;
    /** The ID this end puts in its records (the peer's), and the one the peer puts in its records (ours). */
    private final long writeConnectionId;
    private final long readConnectionId;
    /** The sequence number of the next record this end seals. */
    private long writeSequence;
    /** The highest sequence number authenticated, and the window behind it: bit i set when that number less i was. */
    private long readNewest;
    private long readSeen;

    /**
     * @param writeSequence the next sequence number of epoch {@value #EPOCH} this end may use
     * @param readNewest    the highest sequence number of the peer's already authenticated: it and all before it
     *                      count as seen, so a record the handshake's record layer opened is never opened again
     */
    SessionRecords(byte[] writeKey, byte[] writeSalt, byte[] readKey, byte[] readSalt, long writeConnectionId,
                   long readConnectionId, long writeSequence, long readNewest) {
        if (writeKey.length != KEY_BYTES || readKey.length != KEY_BYTES || writeSalt.length != SALT_BYTES
                || readSalt.length != SALT_BYTES) {
            throw new IllegalArgumentException("AES-128-GCM keys of 16 bytes and salts of 4");
        }
        this.secrets = new byte[2 * (KEY_BYTES + SALT_BYTES)];
        System.arraycopy(writeKey, 0, secrets, 0, KEY_BYTES);
        System.arraycopy(readKey, 0, secrets, KEY_BYTES, KEY_BYTES);
        System.arraycopy(writeSalt, 0, secrets, 2 * KEY_BYTES, SALT_BYTES);
        System.arraycopy(readSalt, 0, secrets, 2 * KEY_BYTES + SALT_BYTES, SALT_BYTES);
        this.writeConnectionId = writeConnectionId;
        this.readConnectionId = readConnectionId;
        this.writeSequence = writeSequence;
        this.readNewest = readNewest;
        this.readSeen = -1L; // the newest and the 63 before it
    }

    /** Seals the bytes as one data record. */
    byte[] seal(ByteBuf plaintext) throws IOException {
        return seal(plaintext, DtlsRecords.APPLICATION_DATA);
    }

    /** A close_notify alert: the session is over. */
    byte[] closeNotify() throws IOException {
        return seal(Unpooled.wrappedBuffer(new byte[] {ALERT_WARNING, CLOSE_NOTIFY}), DtlsRecords.ALERT);
    }

    private byte[] seal(ByteBuf plaintext, int contentType) throws IOException {
        if (writeSequence >= 1L << 48) {
            throw new IOException("the session used every sequence number of its epoch");
        }
        int length = plaintext.readableBytes();
        int innerLength = length + 1; // DTLSInnerPlaintext: the content, then its real type, no padding
        int encryptedLength = EXPLICIT_NONCE_BYTES + innerLength + TAG_BYTES;
        byte[] record = new byte[HEADER_BYTES + encryptedLength];
        long sequence = writeSequence++;
        writeHeader(record, sequence, writeConnectionId, encryptedLength);
        long explicitNonce = (long) EPOCH << 48 | sequence;
        writeLong(record, HEADER_BYTES, explicitNonce);
        int body = HEADER_BYTES + EXPLICIT_NONCE_BYTES;
        plaintext.getBytes(plaintext.readerIndex(), record, body, length);
        record[body + length] = (byte) contentType;
        Cipher cipher = RecordCipher.threadCipher();
        try {
            cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(secrets, 0, KEY_BYTES, "AES"),
                    new GCMParameterSpec(TAG_BYTES * 8, nonce(2 * KEY_BYTES, explicitNonce)));
            cipher.updateAAD(additionalData(sequence, writeConnectionId, innerLength));
            // in place: GCM encrypts into the same bytes and appends its tag
            cipher.doFinal(record, body, innerLength, record, body);
        } catch (GeneralSecurityException e) {
            throw new IOException("sealing a record failed", e);
        }
        return record;
    }

    /**
     * Opens every record of a datagram from the sender, in order, and hands each data record's plaintext on (valid
     * until the receiver returns). A record that is not
     * ours (another type, epoch or connection ID), fails authentication or was seen before is skipped.
     *
     * @return how many records passed authentication and the replay window, data or not
     * @throws IOException when the peer closed the session (close_notify) or ended it with a fatal alert
     */
    int open(ByteBuf datagram, InetSocketAddress sender, DtlsSession.Receiver receiver) throws IOException {
        byte[][] scratch = SCRATCH.get();
        byte[] bytes;
        int offset;
        int end;
        if (datagram.hasArray()) {
            bytes = datagram.array();
            offset = datagram.arrayOffset() + datagram.readerIndex();
        } else {
            bytes = scratch[0];
            offset = 0;
            datagram.getBytes(datagram.readerIndex(), bytes, 0, Math.min(datagram.readableBytes(), bytes.length));
        }
        end = offset + Math.min(datagram.readableBytes(), bytes.length);
        int authenticated = 0;
        while (end - offset >= HEADER_BYTES) {
            int encryptedLength = (bytes[offset + LENGTH_OFFSET] & 0xFF) << 8 | bytes[offset + LENGTH_OFFSET + 1] & 0xFF;
            int recordEnd = offset + HEADER_BYTES + encryptedLength;
            if (recordEnd > end) {
                break; // cut short: nothing after it can be read either
            }
            if (opensRecord(bytes, offset, encryptedLength, scratch[1], sender, receiver)) {
                authenticated++;
            }
            offset = recordEnd;
        }
        return authenticated;
    }

    private boolean opensRecord(byte[] bytes, int offset, int encryptedLength, byte[] plaintext,
                                InetSocketAddress sender, DtlsSession.Receiver receiver)
            throws IOException {
        if ((bytes[offset] & 0xFF) != DtlsRecords.TLS12_CID
                || (bytes[offset + 1] & 0xFF) != 0xFE || (bytes[offset + 2] & 0xFF) != 0xFD
                || ((bytes[offset + 3] & 0xFF) << 8 | bytes[offset + 4] & 0xFF) != EPOCH
                || readLong(bytes, offset + DtlsRecords.CONNECTION_ID_OFFSET) != readConnectionId
                || encryptedLength < EXPLICIT_NONCE_BYTES + 1 + TAG_BYTES) {
            return false;
        }
        long sequence = readLong(bytes, offset + SEQUENCE_OFFSET - 2) & 0xFFFF_FFFF_FFFFL;
        if (seen(sequence)) {
            return false;
        }
        int innerLength = encryptedLength - EXPLICIT_NONCE_BYTES - TAG_BYTES;
        long explicitNonce = readLong(bytes, offset + HEADER_BYTES);
        Cipher cipher = RecordCipher.threadCipher();
        int opened;
        try {
            cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(secrets, KEY_BYTES, KEY_BYTES, "AES"),
                    new GCMParameterSpec(TAG_BYTES * 8, nonce(2 * KEY_BYTES + SALT_BYTES, explicitNonce)));
            cipher.updateAAD(additionalData(sequence, readConnectionId, innerLength));
            opened = cipher.doFinal(bytes, offset + HEADER_BYTES + EXPLICIT_NONCE_BYTES,
                    encryptedLength - EXPLICIT_NONCE_BYTES, plaintext, 0);
        } catch (AEADBadTagException e) {
            return false; // forged, or altered on the way
        } catch (GeneralSecurityException e) {
            throw new IOException("opening a record failed", e);
        }
        int type = 0;
        while (opened > 0 && (type = plaintext[--opened]) == 0) {
            // zero padding before the real content type
        }
        boolean newest = sequence > readNewest;
        markSeen(sequence);
        switch (type) {
            case DtlsRecords.APPLICATION_DATA -> receiver.record(Unpooled.wrappedBuffer(plaintext, 0, opened), sender, newest);
            case DtlsRecords.ALERT -> {
                if (opened >= 2 && (plaintext[0] != ALERT_WARNING || plaintext[1] == CLOSE_NOTIFY)) {
                    throw new IOException(plaintext[1] == CLOSE_NOTIFY ? "the peer closed the session"
                            : "the peer ended the session with alert " + (plaintext[1] & 0xFF));
                }
            }
            default -> {
                // a handshake message sent again by a peer that missed our answer: ours went out long ago
            }
        }
        return true;
    }

    private boolean seen(long sequence) {
        if (sequence > readNewest) {
            return false;
        }
        long behind = readNewest - sequence;
        return behind >= REPLAY_WINDOW || (readSeen & 1L << behind) != 0;
    }

    private void markSeen(long sequence) {
        if (sequence > readNewest) {
            long ahead = sequence - readNewest;
            readSeen = ahead >= REPLAY_WINDOW ? 1L : readSeen << ahead | 1L;
            readNewest = sequence;
        } else {
            readSeen |= 1L << (readNewest - sequence);
        }
    }

    private byte[] nonce(int saltOffset, long explicitNonce) {
        byte[] nonce = NONCE.get();
        System.arraycopy(secrets, saltOffset, nonce, 0, SALT_BYTES);
        writeLong(nonce, SALT_BYTES, explicitNonce);
        return nonce;
    }

    /**
     * RFC 9146 section 5: eight bytes of 0xFF, tls12_cid, the ID's length, tls12_cid, the version, the epoch and
     * sequence number, the ID, and the length of the inner plaintext.
     */
    private static byte[] additionalData(long sequence, long connectionId, int innerLength) {
        byte[] aad = AAD.get();
        Arrays.fill(aad, 0, 8, (byte) 0xFF);
        aad[8] = DtlsRecords.TLS12_CID;
        aad[9] = DtlsRecords.CONNECTION_ID_BYTES;
        aad[10] = DtlsRecords.TLS12_CID;
        aad[11] = (byte) 0xFE;
        aad[12] = (byte) 0xFD;
        writeLong(aad, 13, (long) EPOCH << 48 | sequence);
        writeLong(aad, 21, connectionId);
        aad[29] = (byte) (innerLength >>> 8);
        aad[30] = (byte) innerLength;
        return aad;
    }

    private static void writeHeader(byte[] record, long sequence, long connectionId, int encryptedLength) {
        record[0] = DtlsRecords.TLS12_CID;
        record[1] = (byte) 0xFE;
        record[2] = (byte) 0xFD;
        writeLong(record, 3, (long) EPOCH << 48 | sequence);
        writeLong(record, DtlsRecords.CONNECTION_ID_OFFSET, connectionId);
        record[LENGTH_OFFSET] = (byte) (encryptedLength >>> 8);
        record[LENGTH_OFFSET + 1] = (byte) encryptedLength;
    }

    private static void writeLong(byte[] to, int offset, long value) {
        for (int i = 7; i >= 0; i--) {
            to[offset + i] = (byte) value;
            value >>>= 8;
        }
    }

    private static long readLong(byte[] from, int offset) {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = value << 8 | from[offset + i] & 0xFF;
        }
        return value;
    }
}
