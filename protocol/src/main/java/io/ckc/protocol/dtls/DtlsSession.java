package io.ckc.protocol.dtls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.bouncycastle.tls.DTLSRecordCallback;
import org.bouncycastle.tls.DTLSRecordFlags;
import org.bouncycastle.tls.DTLSTransport;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * An established DTLS session, used by one thread (the event loop of its peer): opens the records queued for it and
 * seals what is sent. Records that fail authentication (a forged or replayed record, one of an old epoch) are
 * dropped by the record layer without a word: {@link #drain} says how many datagrams it read and how many records
 * passed authentication, so the caller knows how many were dropped. An authenticated record need not carry data: a
 * retransmitted Finished of a peer that did not hear ours in time is answered by the record layer itself.
 * <p>Bouncy Castle's record layer opens and seals until the peer's first data record shows that its handshake is
 * done; then {@link SessionRecords} takes over, which keeps only what an established session needs.
 */
public final class DtlsSession {

    /**
     * What one {@link #drain} read. Why counted here and not by whoever queues: datagrams queued on another thread
     * while a drain runs are read by it, and a count kept by the queuing side charged them to the next drain, which
     * found nothing to open and called them forged (an honest node's 4 records, under load).
     *
     * @param datagrams datagrams taken from the queue
     * @param authenticated records among them that passed authentication and the replay window, data or not
     */
    public record Opened(int datagrams, int authenticated) {

        /** Datagrams without one record that passed authentication (forged, replayed, of an old epoch). */
        public int unauthenticated() {
            return Math.max(0, datagrams - authenticated);
        }
    }

    /** Told each opened record's plaintext (valid until it returns), its sender, and whether it is the newest yet. */
    @FunctionalInterface
    public interface Receiver {
        void record(ByteBuf plaintext, InetSocketAddress sender, boolean newest);
    }

    private final DatagramQueue queue;
    private final long connectionId;
    private final long peerConnectionId;
    /** Bouncy Castle's record layer, until {@link #records} takes over; then null. */
    private DTLSTransport transport;
    /** The handshake's AES-GCM ciphers (sealing, opening) whose keys {@link #records} takes; null for other suites. */
    private RecordCipher[] ciphers;
    /** Our own record layer, once the peer's first data record proved its handshake done. */
    private SessionRecords records;
    /**
     * Buffers of the thread that opens and seals, shared by all its sessions: a session's own would cost 17 KB per
     * node, idle or not. A receiver gets the plaintext only until it returns.
     */
    private static final ThreadLocal<byte[]> PLAINTEXT = ThreadLocal.withInitial(
            () -> new byte[DtlsRecords.MAX_PLAINTEXT_BYTES]);
    private static final ThreadLocal<byte[][]> SEALED = ThreadLocal.withInitial(() -> new byte[][] {new byte[1024]});
    private int flags;
    private int authenticated;
    /** Told of every record that passed authentication and the replay window, whatever it carries. */
    private final DTLSRecordCallback callback = accepted -> {
        flags = accepted;
        authenticated++;
    };

    DtlsSession(DTLSTransport transport, DatagramQueue queue, long connectionId, long peerConnectionId,
                RecordCipher[] ciphers) {
        this.transport = transport;
        this.queue = queue;
        this.connectionId = connectionId;
        this.peerConnectionId = peerConnectionId;
        this.ciphers = ciphers;
    }

    /** The ID the peer puts in every record it sends us. */
    public long connectionId() {
        return connectionId;
    }

    public DatagramQueue queue() {
        return queue;
    }

    /**
     * Opens every record queued, in order, and hands each one's data to the receiver.
     *
     * @return what it read, and what of it passed authentication
     * @throws IOException when the session is over (the peer closed it, or it failed)
     */
    public Opened drain(Receiver receiver) throws IOException {
        authenticated = 0;
        long readBefore = queue.read();
        if (records == null) {
            byte[] plaintext = PLAINTEXT.get();
            while (records == null) {
                flags = DTLSRecordFlags.NONE;
                int length;
                try {
                    length = transport.receive(plaintext, 0, plaintext.length, 1, callback);
                } catch (DatagramQueue.Drained e) {
                    return new Opened((int) (queue.read() - readBefore), authenticated);
                }
                if (length >= 0) {
                    boolean newest = (flags & DTLSRecordFlags.IS_NEWEST) != 0;
                    receiver.record(Unpooled.wrappedBuffer(plaintext, 0, length), queue.lastSender(), newest);
                    if (newest) {
                        takeOver();
                    }
                }
            }
        }
        DatagramQueue.Datagram datagram;
        while ((datagram = queue.poll()) != null) {
            authenticated += records.open(Unpooled.wrappedBuffer(datagram.bytes()), datagram.sender(), receiver);
        }
        return new Opened((int) (queue.read() - readBefore), authenticated);
    }

    /**
     * Opens a datagram just read, without queuing it, if the session can: our record layer has taken over and no
     * datagram queued before it waits (order holds). Null when it cannot: then queue it and {@link #drain}.
     *
     * @throws IOException when the session is over (the peer closed it)
     */
    public Opened openNow(ByteBuf datagram, InetSocketAddress sender, Receiver receiver) throws IOException {
        if (records == null || queue.waiting() > 0) {
            return null;
        }
        return new Opened(1, records.open(datagram, sender, receiver));
    }

    /**
     * Our record layer takes over from Bouncy Castle's, if it can: the session's suite is AES-GCM, and the record just
     * opened, the peer's newest, is the one record of the last datagram read, so the replay window starts at it.
     * Records of the datagrams read before were all older, so none of them can be opened again.
     */
    private void takeOver() {
        long read = queue.lastReadSequence();
        long written = queue.lastWrittenSequence();
        if (ciphers == null || ciphers[0] == null || ciphers[1] == null || read < 0 || written < 0) {
            return;
        }
        byte[] writeSalt = ciphers[0].salt();
        byte[] readSalt = ciphers[1].salt();
        if (writeSalt == null || readSalt == null) {
            return;
        }
        records = new SessionRecords(ciphers[0].key(), writeSalt, ciphers[1].key(), readSalt, peerConnectionId,
                connectionId, written + 1, read);
        transport = null;
        ciphers = null;
        queue.forgetSender();
    }

    /** Whether our own record layer has taken over from Bouncy Castle's. */
    boolean ownRecords() {
        return records != null;
    }

    /** Seals the bytes into one record and writes it to the peer. */
    public void send(ByteBuf frame) throws IOException {
        if (records != null) {
            queue.write(records.seal(frame));
            return;
        }
        int length = frame.readableBytes();
        byte[][] holder = SEALED.get();
        if (holder[0].length < length) {
            holder[0] = new byte[Math.max(length, holder[0].length * 2)];
        }
        byte[] sealed = holder[0];
        frame.getBytes(frame.readerIndex(), sealed, 0, length);
        transport.send(sealed, 0, length);
    }

    /** Tells the peer the session is over (close_notify) and forgets its keys. */
    public void close() {
        try {
            if (records != null) {
                queue.write(records.closeNotify());
            } else {
                transport.close();
            }
        } catch (IOException e) {
            // the session is gone either way
        }
        queue.close();
    }
}
