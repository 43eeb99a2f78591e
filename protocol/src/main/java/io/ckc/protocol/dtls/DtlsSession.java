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

    private final DTLSTransport transport;
    private final DatagramQueue queue;
    private final long connectionId;
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

    DtlsSession(DTLSTransport transport, DatagramQueue queue, long connectionId) {
        this.transport = transport;
        this.queue = queue;
        this.connectionId = connectionId;
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
        byte[] plaintext = PLAINTEXT.get();
        while (true) {
            flags = DTLSRecordFlags.NONE;
            int length;
            try {
                length = transport.receive(plaintext, 0, plaintext.length, 1, callback);
            } catch (DatagramQueue.Drained e) {
                return new Opened((int) (queue.read() - readBefore), authenticated);
            }
            if (length >= 0) {
                receiver.record(Unpooled.wrappedBuffer(plaintext, 0, length), queue.lastSender(),
                        (flags & DTLSRecordFlags.IS_NEWEST) != 0);
            }
        }
    }

    /** Seals the bytes into one record and writes it to the peer. */
    public void send(ByteBuf frame) throws IOException {
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
            transport.close();
        } catch (IOException e) {
            // the session is gone either way
        }
        queue.close();
    }
}
