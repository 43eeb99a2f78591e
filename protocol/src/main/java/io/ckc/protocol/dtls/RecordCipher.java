package io.ckc.protocol.dtls;

import org.bouncycastle.tls.crypto.impl.TlsAEADCipherImpl;

import javax.crypto.Cipher;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * AES-GCM for one direction of one session's records, holding only its key: the JDK cipher that does the work is one
 * per thread, set to this key, direction and record nonce for each record and used at once, in one call. GCM takes a
 * new nonce for every record, so Bouncy Castle's own wrapper initialised its cipher per record too.
 * <p>Why: a JDK AES-GCM cipher kept per session and direction holds, between records, its expanded key, its hash
 * subkey's tables and its buffers, most of what an idle node's session cost a gateway (and the simulator), which holds a
 * million of them. The shared cipher expands the key for each record, a few hundred nanoseconds; Bouncy Castle's wrapper
 * built and parsed an ASN.1 encoding of the GCM parameters for each.
 */
final class RecordCipher implements TlsAEADCipherImpl {

    static final String AES_GCM = "AES/GCM/NoPadding";

    /** GCM's full tag, the only one TLS 1.2 uses, until {@link #init} says otherwise. */
    private static final int TAG_BYTES = 16;
    static final int SALT_BYTES = 4;

    private static final ThreadLocal<Cipher> CIPHERS = ThreadLocal.withInitial(() -> {
        try {
            return Cipher.getInstance(AES_GCM);
        } catch (NoSuchAlgorithmException | NoSuchPaddingException e) {
            throw new IllegalStateException("the JDK has no " + AES_GCM, e);
        }
    });

    /** The thread's AES-GCM cipher, shared by every session's records on it (and by {@link SessionRecords}). */
    static Cipher threadCipher() {
        return CIPHERS.get();
    }

    private final int keySize;
    private final int mode;
    private SecretKeySpec key;
    private byte[] nonce;
    private int macSize = TAG_BYTES;

    RecordCipher(int keySize, boolean encrypting) {
        this.keySize = keySize;
        this.mode = encrypting ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE;
    }

    @Override
    public void setKey(byte[] key, int keyOff, int keyLen) {
        if (keyLen != keySize) {
            throw new IllegalStateException("a key of " + keyLen + " bytes for AES-" + keySize * 8);
        }
        this.key = new SecretKeySpec(key, keyOff, keyLen, "AES");
    }

    /** The next record's nonce and tag size; the cipher is set to them when the record comes. */
    @Override
    public void init(byte[] nonce, int macSize) {
        this.nonce = nonce;
        this.macSize = macSize;
    }

    /** The key, once the handshake set it. */
    byte[] key() {
        return key.getEncoded();
    }

    /**
     * The salt of this direction's nonces (RFC 5288: the first 4 bytes, from the key block), once the record layer
     * sealed or opened a record with it; null before.
     */
    byte[] salt() {
        return nonce == null ? null : Arrays.copyOf(nonce, SALT_BYTES);
    }

    @Override
    public int getOutputSize(int inputLength) {
        return mode == Cipher.ENCRYPT_MODE ? inputLength + macSize : Math.max(0, inputLength - macSize);
    }

    @Override
    public int doFinal(byte[] additionalData, byte[] input, int inputOffset, int inputLength, byte[] output,
                       int outputOffset) {
        Cipher cipher = threadCipher();
        try {
            cipher.init(mode, key, new GCMParameterSpec(macSize * 8, nonce));
            if (additionalData != null && additionalData.length > 0) {
                cipher.updateAAD(additionalData);
            }
            return cipher.doFinal(input, inputOffset, inputLength, output, outputOffset);
        } catch (GeneralSecurityException e) {
            // as Bouncy Castle's own wrapper: its record layer takes this for a record that fails authentication
            throw new IllegalStateException(e.getMessage(), e);
        }
    }
}
