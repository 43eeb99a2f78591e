package io.ckc.protocol.dtls;

import io.ckc.protocol.auth.Identity;
import org.bouncycastle.tls.BasicTlsPSKIdentity;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.DTLSClientProtocol;
import org.bouncycastle.tls.DTLSRequest;
import org.bouncycastle.tls.DTLSServerProtocol;
import org.bouncycastle.tls.DTLSTransport;
import org.bouncycastle.tls.PSKTlsClient;
import org.bouncycastle.tls.PSKTlsServer;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsContext;
import org.bouncycastle.tls.TlsPSKIdentityManager;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.TlsCrypto;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.Optional;
import java.util.function.Function;

/**
 * The two ends of CKC's DTLS 1.2 handshake (Bouncy Castle): a node proves it holds its pre-shared key, both ends
 * agree on fresh keys (ECDHE, so a key found later does not open sessions recorded earlier), and each names the
 * connection ID (RFC 9146) the other must put in its records, so a session is found by that ID, not by an address
 * that may change. Records are sealed with AES-128-GCM (the JDK's, with the CPU's AES instructions).
 */
public final class DtlsPeers {

    /** One process-wide crypto: the JDK's providers (X25519 by Bouncy Castle), one secure random. */
    static final TlsCrypto CRYPTO = new DtlsCrypto(new SecureRandom());

    /** ECDHE key agreement authenticated by the PSK, with AES-128-GCM first (RFC 8442) and ChaCha20-Poly1305 next. */
    private static final int[] CIPHER_SUITES = {
            CipherSuite.TLS_ECDHE_PSK_WITH_AES_128_GCM_SHA256,
            CipherSuite.TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256,
    };
    /** The crypto the handshakes use, for a server's cookie verifier. */
    public static TlsCrypto crypto() {
        return CRYPTO;
    }

    /** How long a handshake may take before it is given up. */
    static final int HANDSHAKE_TIMEOUT_MS = 10_000;
    /**
     * How long a node waits for the gateway's answer to a handshake flight before it sends the flight again (doubled at
     * each resend, as Bouncy Castle does). Why not Bouncy Castle's 1 s (RFC 6347's SHOULD, which RFC 9147 lets a
     * deployment's profile shorten): a node whose gateway died counts its handshake with the next one toward being back
     * within 5 s, and one lost flight cost it a second, and the nodes whose handshakes with that gateway waited behind
     * it on a shared socket too. From giving up a dead gateway to a new session, the slowest of its nodes took
     * 1.03-1.17 s at 1 s (perf faults of 2026-11-28 at 4bc46bb), 0.26-0.30 s at 250 ms
     * (perf/results/2026-11-29-1103-faults).
     * A path slower than this costs a resent flight, not a failed handshake.
     */
    static final int NODE_HANDSHAKE_RESEND_MS = 250;

    private DtlsPeers() {
    }

    /** The result of a server's handshake: the session, and the node it proved to be. */
    public record Accepted(DtlsSession session, Identity identity) {
    }

    /**
     * Runs the server's side of a handshake whose ClientHello carried a valid cookie; blocks until it ends.
     *
     * @param keys the key of each identity the store knows
     * @throws IOException when it fails: an unknown identity, a wrong key, a timeout, a peer without connection IDs
     */
    public static Accepted accept(DatagramQueue queue, DTLSRequest request, long connectionId,
                                  Function<Identity, Optional<byte[]>> keys) throws IOException {
        NodeServer server = new NodeServer(keys, connectionId);
        RecordCipher[] ciphers = new RecordCipher[2];
        DtlsCrypto.HANDSHAKE_CIPHERS.set(ciphers);
        DTLSTransport transport;
        try {
            transport = new DTLSServerProtocol().accept(server, queue, request);
        } finally {
            DtlsCrypto.HANDSHAKE_CIPHERS.remove();
        }
        if (server.identity == null || !server.usesConnectionIds()) {
            transport.close();
            throw new IOException("the peer did not agree to connection IDs");
        }
        queue.stopWaiting();
        long peerConnectionId = server.peerConnectionId();
        server.forgetHandshake();
        return new Accepted(new DtlsSession(transport, queue, connectionId, peerConnectionId,
                peerConnectionId == -1 ? null : ciphers), server.identity);
    }

    /** Runs a node's side of a handshake; blocks until it ends. */
    public static DtlsSession connect(DatagramQueue queue, Identity identity, byte[] key, long connectionId)
            throws IOException {
        NodeClient client = new NodeClient(identity, key, connectionId);
        RecordCipher[] ciphers = new RecordCipher[2];
        DtlsCrypto.HANDSHAKE_CIPHERS.set(ciphers);
        DTLSTransport transport;
        try {
            transport = new DTLSClientProtocol().connect(client, queue);
        } finally {
            DtlsCrypto.HANDSHAKE_CIPHERS.remove();
        }
        if (!client.usesConnectionIds()) {
            transport.close();
            throw new IOException("the gateway did not agree to connection IDs");
        }
        queue.stopWaiting();
        long peerConnectionId = client.peerConnectionId();
        client.forgetHandshake();
        return new DtlsSession(transport, queue, connectionId, peerConnectionId, peerConnectionId == -1 ? null : ciphers);
    }

    /** Whether both ends agreed on connection IDs: the gateway finds sessions by them, so a session needs them. */
    private static boolean usesConnectionIds(TlsContext context) {
        return context.getSecurityParametersConnection().getConnectionIDLocal() != null
                && context.getSecurityParametersConnection().getConnectionIDPeer() != null;
    }

    /**
     * The connection ID the peer chose (the one this end puts in its records), or -1 when it is not of the
     * {@value DtlsRecords#CONNECTION_ID_BYTES} bytes CKC's peers choose: then Bouncy Castle's record layer keeps the
     * session, as {@link SessionRecords} writes IDs of that length only. Bouncy Castle calls it the local ID: the one
     * in the records this end writes ("peer" is the one the peer writes, ours).
     */
    private static long peerConnectionId(TlsContext context) {
        byte[] peer = context.getSecurityParametersConnection().getConnectionIDLocal();
        if (peer.length != DtlsRecords.CONNECTION_ID_BYTES) {
            return -1;
        }
        long id = 0;
        for (byte b : peer) {
            id = id << 8 | b & 0xFF;
        }
        return id;
    }

    private static final class NodeServer extends PSKTlsServer {
        private final long connectionId;
        private volatile Identity identity;

        NodeServer(Function<Identity, Optional<byte[]>> keys, long connectionId) {
            super(CRYPTO, null);
            this.connectionId = connectionId;
            this.pskIdentityManager = new TlsPSKIdentityManager() {
                @Override
                public byte[] getHint() {
                    return null;
                }

                @Override
                public byte[] getPSK(byte[] name) {
                    Optional<Identity> parsed = Identity.parse(name);
                    Optional<byte[]> key = parsed.flatMap(keys);
                    if (key.isEmpty()) {
                        return null; // unknown_psk_identity
                    }
                    identity = parsed.get();
                    return key.get();
                }
            };
        }

        @Override
        protected ProtocolVersion[] getSupportedVersions() {
            return ProtocolVersion.DTLSv12.only();
        }

        @Override
        protected int[] getSupportedCipherSuites() {
            return TlsUtils.getSupportedCipherSuites(getCrypto(), CIPHER_SUITES);
        }

        @Override
        protected byte[] getNewConnectionID() {
            return DtlsRecords.bytes(connectionId);
        }

        @Override
        public int getHandshakeTimeoutMillis() {
            return HANDSHAKE_TIMEOUT_MS;
        }

        boolean usesConnectionIds() {
            return DtlsPeers.usesConnectionIds(context);
        }

        long peerConnectionId() {
            return DtlsPeers.peerConnectionId(context);
        }

        /**
         * Drops what only the handshake read: the record layer keeps this object for the session's life (a gateway
         * holds one per node), and the extensions both ends sent were a dozen hash table entries of it.
         */
        void forgetHandshake() {
            clientExtensions = null;
            serverExtensions.clear();
            offeredCipherSuites = null;
            cipherSuites = null;
            protocolVersions = null;
        }
    }

    private static final class NodeClient extends PSKTlsClient {
        private final long connectionId;

        NodeClient(Identity identity, byte[] key, long connectionId) {
            super(CRYPTO, new BasicTlsPSKIdentity(identity.bytes(), key));
            this.connectionId = connectionId;
        }

        @Override
        protected ProtocolVersion[] getSupportedVersions() {
            return ProtocolVersion.DTLSv12.only();
        }

        @Override
        protected int[] getSupportedCipherSuites() {
            return TlsUtils.getSupportedCipherSuites(getCrypto(), CIPHER_SUITES);
        }

        @Override
        protected byte[] getNewConnectionID() {
            return DtlsRecords.bytes(connectionId);
        }

        @Override
        public int getHandshakeTimeoutMillis() {
            return HANDSHAKE_TIMEOUT_MS;
        }

        @Override
        public int getHandshakeResendTimeMillis() {
            return NODE_HANDSHAKE_RESEND_MS;
        }

        boolean usesConnectionIds() {
            return DtlsPeers.usesConnectionIds(context);
        }

        long peerConnectionId() {
            return DtlsPeers.peerConnectionId(context);
        }

        /** Drops what only the handshake read, as the gateway's end does ({@link NodeServer#forgetHandshake}). */
        void forgetHandshake() {
            protocolVersions = null;
            cipherSuites = null;
            supportedGroups = null;
            supportedSignatureAlgorithms = null;
            supportedSignatureAlgorithmsCert = null;
        }
    }
}
