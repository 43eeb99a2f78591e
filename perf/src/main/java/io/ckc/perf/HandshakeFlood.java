package io.ckc.perf;

import io.ckc.protocol.auth.Identity;
import io.ckc.protocol.dtls.DatagramQueue;
import io.ckc.protocol.dtls.DtlsPeers;
import io.ckc.protocol.dtls.DtlsRecords;
import org.bouncycastle.tls.TlsUtils;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Half-open DTLS handshakes from one address, what a program that floods an authenticating gateway sends: from each of
 * many ports, a ClientHello; once the gateway answers with its cookie (RFC 6347 4.2.1), the ClientHello with the
 * cookie, again and again, and never the flight that would go on. Each such ClientHello proves its address and may
 * start a handshake at the gateway, which then waits for a peer that never answers. No key is needed: a ClientHello
 * names no node.
 */
final class HandshakeFlood implements AutoCloseable {

    /** Where a ClientHello's fields start: after the record header (13 bytes) and the handshake header (12). */
    private static final int BODY = DtlsRecords.HEADER_BYTES + 12;
    /** The ClientHello's session ID length: after client_version (2) and random (32). */
    private static final int SESSION_ID_LENGTH = BODY + 2 + 32;

    final AtomicLong sent = new AtomicLong();
    final AtomicLong cookies = new AtomicLong();
    private final List<DatagramChannel> sockets = new ArrayList<>();
    private final byte[][] hellos;
    private final byte[] hello;
    private final Thread sender;
    private volatile boolean running = true;

    HandshakeFlood(InetSocketAddress gateway, String fromAddress, int sockets, int perSecond) throws Exception {
        hello = clientHello();
        hellos = new byte[sockets][];
        for (int i = 0; i < sockets; i++) {
            DatagramChannel socket = DatagramChannel.open().bind(new InetSocketAddress(fromAddress, 0));
            socket.connect(gateway);
            socket.configureBlocking(false);
            this.sockets.add(socket);
        }
        sender = new Thread(() -> send(perSecond), "handshake-flood");
        sender.start();
    }

    private void send(int perSecond) {
        long start = System.nanoTime();
        ByteBuffer answer = ByteBuffer.allocate(2048);
        int next = 0;
        try {
            while (running) {
                for (int i = 0; i < sockets.size(); i++) {
                    answer.clear();
                    while (sockets.get(i).read(answer) > 0) {
                        answer.flip();
                        byte[] cookie = cookie(answer);
                        if (cookie != null && hellos[i] == null) {
                            hellos[i] = withCookie(hello, cookie);
                            cookies.incrementAndGet();
                        }
                        answer.clear();
                    }
                }
                long due = (System.nanoTime() - start) * perSecond / 1_000_000_000L;
                while (sent.get() < due && running) {
                    int i = next++ % sockets.size();
                    sockets.get(i).write(ByteBuffer.wrap(hellos[i] != null ? hellos[i] : hello));
                    sent.incrementAndGet();
                }
                TimeUnit.MICROSECONDS.sleep(500);
            }
        } catch (Exception e) {
            if (running) {
                throw new IllegalStateException("handshake flood stopped", e);
            }
        }
    }

    /** A node's first ClientHello, without a cookie, as the SDK's DTLS client writes it. */
    static byte[] clientHello() throws Exception {
        CompletableFuture<byte[]> first = new CompletableFuture<>();
        DatagramQueue queue = new DatagramQueue(first::complete);
        Thread client = new Thread(() -> {
            try {
                DtlsPeers.connect(queue, Identity.of(UUID.randomUUID()), new byte[32], 1L);
            } catch (IOException | RuntimeException ignored) {
                // interrupted: only its first datagram was wanted
            }
        }, "client-hello");
        client.setDaemon(true);
        client.start();
        try {
            return first.get(10, TimeUnit.SECONDS);
        } finally {
            client.interrupt();
        }
    }

    /** The cookie of a HelloVerifyRequest, or null when the datagram is not one. */
    static byte[] cookie(ByteBuffer datagram) {
        int cookieLength = BODY + 2;
        if (datagram.remaining() <= cookieLength || datagram.get(0) != DtlsRecords.HANDSHAKE
                || datagram.get(DtlsRecords.HEADER_BYTES) != 3 /* hello_verify_request */) {
            return null;
        }
        int length = datagram.get(cookieLength) & 0xFF;
        if (datagram.remaining() < cookieLength + 1 + length) {
            return null;
        }
        byte[] cookie = new byte[length];
        datagram.get(cookieLength + 1, cookie);
        return cookie;
    }

    /** The ClientHello again, with the cookie and the next message and record sequence numbers. */
    static byte[] withCookie(byte[] hello, byte[] cookie) {
        int cookieAt = SESSION_ID_LENGTH + 1 + (hello[SESSION_ID_LENGTH] & 0xFF);
        if ((hello[cookieAt] & 0xFF) != 0) {
            throw new IllegalArgumentException("the ClientHello has a cookie already");
        }
        byte[] again = new byte[hello.length + cookie.length];
        System.arraycopy(hello, 0, again, 0, cookieAt);
        again[cookieAt] = (byte) cookie.length;
        System.arraycopy(cookie, 0, again, cookieAt + 1, cookie.length);
        System.arraycopy(hello, cookieAt + 1, again, cookieAt + 1 + cookie.length, hello.length - cookieAt - 1);
        again[10] = 1; // the record's sequence number (its last byte)
        TlsUtils.writeUint16(TlsUtils.readUint16(again, 11) + cookie.length, again, 11); // the record's length
        int message = DtlsRecords.HEADER_BYTES;
        TlsUtils.writeUint24(TlsUtils.readUint24(again, message + 1) + cookie.length, again, message + 1); // length
        TlsUtils.writeUint16(1, again, message + 4); // message_seq
        TlsUtils.writeUint24(TlsUtils.readUint24(again, message + 9) + cookie.length, again, message + 9); // fragment
        return again;
    }

    @Override
    public void close() throws Exception {
        running = false;
        sender.join(5_000);
        for (DatagramChannel socket : sockets) {
            socket.close();
        }
    }
}
