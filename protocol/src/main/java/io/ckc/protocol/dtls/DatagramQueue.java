package io.ckc.protocol.dtls;

import org.bouncycastle.tls.DatagramTransport;

import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The datagrams of one DTLS peer, as Bouncy Castle's record layer reads and writes them. Netty reads the socket and
 * {@link #offer}s each datagram of the peer here; the record layer takes them. During the handshake it runs on a
 * thread of its own and waits for them (Bouncy Castle's handshake blocks); once the session is up, it runs on the
 * event loop that owns the peer and must never wait: then an empty queue ends the read at once ({@link Drained}).
 * What the record layer writes goes to {@code out}.
 */
public final class DatagramQueue implements DatagramTransport {

    /** Datagrams waiting for the record layer; past this many, newer ones are dropped as a socket would drop them. */
    static final int CAPACITY = 256;

    /** Thrown by a read of an empty queue once the session is up: "nothing more now", not an error. */
    public static final class Drained extends InterruptedIOException {
        private Drained() {
            super("no datagram waiting");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    record Datagram(byte[] bytes, InetSocketAddress sender) {
    }

    /**
     * The datagrams waiting, oldest first; null while none waits, guarded by this queue's monitor (offered on any
     * event loop, read on the owner's, waited for by a handshake's thread). Why not a blocking queue: a session holds
     * its queue for life, mostly empty, and a linked blocking queue's two locks, conditions and head were about 250
     * bytes of every session's heap (an array of {@value #CAPACITY} slots, a kilobyte).
     */
    private ArrayDeque<Datagram> in;
    /** One for every queue: it carries no stack and no state, and a queue's own was 40 bytes of every session. */
    private static final Drained DRAINED = new Drained();
    private final Consumer<byte[]> out;
    private volatile boolean waits = true;
    /** The sender of the datagram the record layer read last: where its records came from. */
    private InetSocketAddress lastSender;
    /** The length of that datagram: records of it the record layer has not opened yet are at most this long. */
    private int lastLength;
    /** Datagrams the record layer has read, on the thread that reads. */
    private long read;
    /**
     * The sequence numbers of epoch {@value SessionRecords#EPOCH} in the last record Bouncy Castle's record layer
     * wrote (-1 before any), and in the last datagram it read (-1 unless it was one record of that epoch): where
     * {@link SessionRecords} goes on from when it takes over.
     */
    private long lastWrittenSequence = -1;
    private long lastReadSequence = -1;
    /**
     * The record sequence numbers of the ClientHellos written (bit n for number n, below 64; a handshake sends a few),
     * written by the handshake's thread and read on the event loop that routes the answers: see {@link #answersHello}.
     */
    private volatile long helloSequences;

    public DatagramQueue(Consumer<byte[]> out) {
        this.out = out;
    }

    /** Queues a datagram of this peer; false when the queue is full and it was dropped. */
    public synchronized boolean offer(byte[] datagram, InetSocketAddress sender) {
        if (in == null) {
            in = new ArrayDeque<>(4);
        } else if (in.size() >= CAPACITY) {
            return false;
        }
        in.add(new Datagram(datagram, sender));
        if (waits) {
            notifyAll(); // a handshake's thread may wait for it
        }
        return true;
    }

    /** Datagrams queued and not yet read. */
    public synchronized int waiting() {
        return in == null ? 0 : in.size();
    }

    /** Takes the oldest datagram waiting, or null; the deque goes when it is empty. */
    private Datagram take() {
        if (in == null) {
            return null;
        }
        Datagram next = in.poll();
        if (in.isEmpty()) {
            in = null;
        }
        return next;
    }

    /** Waits up to the time given for a datagram, for a handshake's thread. */
    private synchronized Datagram take(int waitMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, waitMillis));
        while (in == null) {
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMs <= 0) {
                return null;
            }
            wait(leftMs);
        }
        return take();
    }

    /** From now on reads never wait: the session is up and read on its event loop. */
    void stopWaiting() {
        waits = false;
    }

    InetSocketAddress lastSender() {
        return lastSender;
    }

    /** Datagrams the record layer has read so far; read it on the thread that reads. */
    long read() {
        return read;
    }

    /**
     * The record layer allocates a buffer of this size for every read. Why not always the largest record: a session
     * reads each datagram with two reads (the second finds the queue empty), so 18 KB of garbage per datagram on each
     * side of every round trip. Once the session is up it is the next datagram's length, and at least the last one's,
     * whose further records (a datagram may hold several) the record layer keeps and copies into that buffer.
     */
    @Override
    public int getReceiveLimit() {
        if (waits) {
            return DtlsRecords.MAX_RECORD_BYTES;
        }
        Datagram head;
        synchronized (this) {
            head = in == null ? null : in.peek();
        }
        return Math.max(DtlsRecords.HEADER_BYTES, Math.max(lastLength, head == null ? 0 : head.bytes().length));
    }

    @Override
    public int getSendLimit() {
        return DtlsRecords.MAX_RECORD_BYTES;
    }

    @Override
    public int receive(byte[] buf, int off, int len, int waitMillis) throws InterruptedIOException {
        Datagram next;
        if (waits) {
            try {
                next = take(waitMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for a datagram");
            }
            if (next == null) {
                return -1;
            }
        } else {
            synchronized (this) {
                next = take();
            }
            if (next == null) {
                throw DRAINED;
            }
        }
        read++;
        lastReadSequence = sequenceOfEpochOne(next.bytes(), 0, next.bytes().length, -1);
        lastSender = next.sender();
        lastLength = next.bytes().length;
        if (next.bytes().length > len) {
            return next.bytes().length; // more than a record can be: the record layer discards it
        }
        System.arraycopy(next.bytes(), 0, buf, off, next.bytes().length);
        return next.bytes().length;
    }

    /**
     * Whether a HelloVerifyRequest of this record sequence number answers a ClientHello this queue wrote: a server
     * gives its HelloVerifyRequest the number of the ClientHello it answers (RFC 6347 4.2.1). Why ask: the nodes of one
     * socket shake hands with a gateway one after another, from one address, and a handshake that gives up sends its
     * ClientHello one last time as it ends. The gateway's answer to it, a cookie for that hello, arrives as the next
     * node's handshake has begun; taken as that handshake's cookie, it made the node send a ClientHello the gateway
     * never accepts, until that handshake too gave up after 10 s, and its last hello's answer derailed the next one:
     * the tail of a socket's queue stalled for minutes (a demo on a fresh stack, 2026-12-02: 943 of 1,000 nodes).
     */
    public boolean answersHello(long sequence) {
        return sequence >= 0 && sequence < Long.SIZE && (helloSequences & 1L << sequence) != 0;
    }

    @Override
    public void send(byte[] buf, int off, int len) {
        if (len > DtlsRecords.HEADER_BYTES && buf[off] == DtlsRecords.HANDSHAKE && buf[off + 3] == 0 && buf[off + 4] == 0
                && buf[off + DtlsRecords.HEADER_BYTES] == DtlsRecords.CLIENT_HELLO) {
            long sequence = recordSequence(buf, off);
            if (sequence < Long.SIZE) {
                helloSequences |= 1L << sequence;
            }
        }
        lastWrittenSequence = sequenceOfEpochOne(buf, off, len, lastWrittenSequence);
        byte[] datagram = new byte[len];
        System.arraycopy(buf, off, datagram, 0, len);
        out.accept(datagram);
    }

    /** Writes a datagram that {@link SessionRecords} sealed. */
    void write(byte[] datagram) {
        out.accept(datagram);
    }

    /**
     * Takes the next datagram queued, or null; once the session is up, on the thread that reads. Its sender is not
     * kept: a session that keeps the sender of its last datagram keeps a second address object for life.
     */
    Datagram poll() {
        Datagram next;
        synchronized (this) {
            next = take();
        }
        if (next != null) {
            read++;
        }
        return next;
    }

    /** Bouncy Castle's record layer reads no more: forgets the sender of its last datagram. */
    void forgetSender() {
        lastSender = null;
    }

    long lastWrittenSequence() {
        return lastWrittenSequence;
    }

    long lastReadSequence() {
        return lastReadSequence;
    }

    /**
     * The sequence number of the datagram's record if it holds one record, of epoch {@value SessionRecords#EPOCH}, else
     * the given. Why one: a datagram of several records may join a forged one to a genuine one, and the record layer
     * authenticates only the genuine; the number read must be that of the record it opened.
     */
    private static long sequenceOfEpochOne(byte[] bytes, int offset, int length, long otherwise) {
        if (length < DtlsRecords.HEADER_BYTES
                || ((bytes[offset + 3] & 0xFF) << 8 | bytes[offset + 4] & 0xFF) != SessionRecords.EPOCH) {
            return otherwise;
        }
        int header = (bytes[offset] & 0xFF) == DtlsRecords.TLS12_CID
                ? DtlsRecords.HEADER_BYTES + DtlsRecords.CONNECTION_ID_BYTES : DtlsRecords.HEADER_BYTES;
        if (length < header
                || header + ((bytes[offset + header - 2] & 0xFF) << 8 | bytes[offset + header - 1] & 0xFF) != length) {
            return otherwise;
        }
        return recordSequence(bytes, offset);
    }

    /** The sequence number (48 bits) of the record at {@code offset}. */
    private static long recordSequence(byte[] bytes, int offset) {
        long sequence = 0;
        for (int i = 5; i < 11; i++) {
            sequence = sequence << 8 | bytes[offset + i] & 0xFF;
        }
        return sequence;
    }

    @Override
    public synchronized void close() {
        in = null;
    }
}
