package io.ckc.protocol.dtls;

import org.bouncycastle.jcajce.util.DefaultJcaJceHelper;
import org.bouncycastle.math.ec.rfc7748.X25519;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.NamedGroup;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.crypto.TlsAgreement;
import org.bouncycastle.tls.crypto.TlsECConfig;
import org.bouncycastle.tls.crypto.TlsECDomain;
import org.bouncycastle.tls.crypto.TlsNonceGenerator;
import org.bouncycastle.tls.crypto.TlsSecret;
import org.bouncycastle.tls.crypto.impl.TlsAEADCipherImpl;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCrypto;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The JDK's crypto for the handshakes and records (AES-GCM with the CPU's AES instructions), with two changes. A session's
 * AES-GCM keeps only its keys ({@link RecordCipher}). X25519, the key agreement every handshake makes, is Bouncy
 * Castle's own RFC 7748 code: the same function (the same 32 bytes agreed), faster. Why: a gateway pays a handshake for every node that connects, a million of them for a gateway that holds a
 * million nodes, and again after a gateway dies. Handshakes between two ends in one JVM, 1,500 a round after a warm-up
 * (both ends' CPU, the JIT included): 2.1-2.2 ms each with JDK 17's XDH (four operations a handshake: a key pair and an
 * agreement on each side), 1.5-1.6 ms with this.
 */
final class DtlsCrypto extends JcaTlsCrypto {

    /**
     * Where the handshake running on this thread wants its session's AES-GCM ciphers (the sealing one, then the
     * opening one), to hand their keys to {@link SessionRecords}; unset outside a handshake.
     */
    static final ThreadLocal<RecordCipher[]> HANDSHAKE_CIPHERS = new ThreadLocal<>();

    DtlsCrypto(SecureRandom random) {
        super(new DefaultJcaJceHelper(), random, random);
    }

    /**
     * The randoms of every handshake from the one process-wide secure random. Bouncy Castle's own made a generator of
     * its own per session (a SHA-512 hash DRBG with its state, about a kilobyte), kept for the session's life though
     * used only in its handshake: records take their nonces from their sequence numbers.
     */
    @Override
    public TlsNonceGenerator createNonceGenerator(byte[] additionalSeedMaterial) {
        return size -> {
            byte[] nonce = new byte[size];
            getSecureRandom().nextBytes(nonce);
            return nonce;
        };
    }

    @Override
    protected TlsAEADCipherImpl createAEADCipher(String cipherName, String algorithm, int keySize, boolean isEncrypting)
            throws GeneralSecurityException {
        if (cipherName.equals(RecordCipher.AES_GCM)) {
            RecordCipher cipher = new RecordCipher(keySize, isEncrypting);
            RecordCipher[] created = HANDSHAKE_CIPHERS.get();
            if (created != null) {
                created[isEncrypting ? 0 : 1] = cipher;
            }
            return cipher;
        }
        return super.createAEADCipher(cipherName, algorithm, keySize, isEncrypting);
    }

    @Override
    public TlsECDomain createECDomain(TlsECConfig config) {
        if (config.getNamedGroup() == NamedGroup.x25519) {
            return this::x25519;
        }
        return super.createECDomain(config);
    }

    /** One ephemeral X25519 agreement: the local key pair, the peer's public value, the shared secret. */
    private TlsAgreement x25519() {
        return new TlsAgreement() {
            private final byte[] privateKey = new byte[X25519.SCALAR_SIZE];
            private byte[] peerValue;

            @Override
            public byte[] generateEphemeral() {
                X25519.generatePrivateKey(getSecureRandom(), privateKey);
                byte[] publicKey = new byte[X25519.POINT_SIZE];
                X25519.generatePublicKey(privateKey, 0, publicKey, 0);
                return publicKey;
            }

            @Override
            public void receivePeerValue(byte[] value) throws IOException {
                if (value == null || value.length != X25519.POINT_SIZE) {
                    throw new TlsFatalAlert(AlertDescription.illegal_parameter);
                }
                peerValue = value.clone();
            }

            @Override
            public TlsSecret calculateSecret() throws IOException {
                byte[] shared = new byte[X25519.POINT_SIZE];
                boolean contributory = X25519.calculateAgreement(privateKey, 0, peerValue, 0, shared, 0);
                Arrays.fill(privateKey, (byte) 0);
                if (!contributory) {
                    throw new TlsFatalAlert(AlertDescription.handshake_failure); // a low-order point: no shared secret
                }
                try {
                    return createSecret(shared);
                } finally {
                    Arrays.fill(shared, (byte) 0);
                }
            }
        };
    }
}
