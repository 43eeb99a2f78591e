package io.ckc.gateway.core;

/**
 * How the gateway authenticates nodes: against a credential store (reliable UDP: DTLS 1.2 with a pre-shared key per
 * node and connection IDs), or not at all in the insecure mode, which exists for the perf baseline only.
 *
 * @param credentials      the credential store's file; null in the insecure mode
 * @param handshakesPerAddress DTLS handshakes in progress from one source address at most; a ClientHello beyond is
 *                         dropped and counted
 * @param maxHandshakes    DTLS handshakes in progress at most, each on a thread of its own (Bouncy Castle's handshake
 *                         blocks while it waits for its node); a ClientHello beyond is dropped and counted
 * @param idleMs           a DTLS session that heard nothing from its node this long is closed
 * @param tlsKeystore      the gateway's TLS certificate and key (PKCS#12) for its MQTT listeners; null: none
 * @param tlsPassword      that keystore's password
 * @param tlsClientCa      the certificates (PEM) of the authorities whose device certificates the MQTT listeners
 *                         accept in place of a password; null: devices log in with a password only
 */
public record SecurityOptions(String credentials, int handshakesPerAddress, int maxHandshakes, long idleMs,
                              String tlsKeystore, String tlsPassword, String tlsClientCa) {

    public SecurityOptions {
        if (handshakesPerAddress <= 0 || maxHandshakes <= 0 || idleMs <= 0) {
            throw new IllegalArgumentException("CKC_DTLS_HANDSHAKES_PER_ADDRESS, CKC_DTLS_MAX_HANDSHAKES and the idle "
                    + "time must be positive, got " + handshakesPerAddress + ", " + maxHandshakes + " and " + idleMs);
        }
    }

    public boolean insecure() {
        return credentials == null;
    }
}
