package io.ckc.gateway.core;

/**
 * How the gateway authenticates nodes: against a credential store (reliable UDP: DTLS 1.2 with a pre-shared key per
 * node and connection IDs), or not at all in the insecure mode, which exists for the perf baseline only.
 *
 * @param credentials      the credential store's file; null in the insecure mode
 * @param handshakeThreads threads that run DTLS handshakes (they block while they wait for the node)
 * @param maxHandshakes    handshakes waiting or running at most; a ClientHello beyond is dropped and counted
 * @param idleMs           a DTLS session that heard nothing from its node this long is closed
 * @param tlsKeystore      the gateway's TLS certificate and key (PKCS#12) for its MQTT listeners; null: none
 * @param tlsPassword      that keystore's password
 */
public record SecurityOptions(String credentials, int handshakeThreads, int maxHandshakes, long idleMs,
                              String tlsKeystore, String tlsPassword) {

    public SecurityOptions {
        if (handshakeThreads <= 0 || maxHandshakes <= 0 || idleMs <= 0) {
            throw new IllegalArgumentException("CKC_DTLS_HANDSHAKE_THREADS, CKC_DTLS_MAX_HANDSHAKES and the idle time "
                    + "must be positive, got " + handshakeThreads + ", " + maxHandshakes + " and " + idleMs);
        }
    }

    public boolean insecure() {
        return credentials == null;
    }
}
