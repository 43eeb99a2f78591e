package io.ckc.protocol.dtls;

import org.junit.jupiter.api.Test;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A session's AES-GCM on the thread's one cipher: the JDK's own AES-GCM reads what it seals, and the other way. */
class RecordCipherTest {

    private static final byte[] AAD = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};

    @Test
    void sessionsSharingTheThreadsCipherEachSealWithTheirOwnKeyAndNonce() throws Exception {
        byte[] keyA = key(1);
        byte[] keyB = key(2);
        RecordCipher sealA = sealer(keyA);
        RecordCipher sealB = sealer(keyB);
        for (int record = 0; record < 3; record++) { // interleaved: A, B, A, B, ...
            byte[] plain = ("record " + record).getBytes(StandardCharsets.UTF_8);
            byte[] fromA = seal(sealA, nonce(record), plain);
            byte[] fromB = seal(sealB, nonce(record), plain);
            assertArrayEquals(jdk(Cipher.ENCRYPT_MODE, keyA, nonce(record), plain), fromA);
            assertArrayEquals(jdk(Cipher.ENCRYPT_MODE, keyB, nonce(record), plain), fromB);
            assertEquals(plain.length + 16, fromA.length);
        }
    }

    @Test
    void opensWhatTheJdkSealedAndRefusesARecordChangedOnTheWay() throws Exception {
        byte[] key = key(3);
        RecordCipher open = new RecordCipher(16, false);
        open.setKey(key, 0, key.length);
        byte[] plain = "a node's message".getBytes(StandardCharsets.UTF_8);
        byte[] sealed = jdk(Cipher.ENCRYPT_MODE, key, nonce(7), plain);
        open.init(nonce(7), 16);
        byte[] opened = new byte[open.getOutputSize(sealed.length)];
        assertEquals(plain.length, open.doFinal(AAD, sealed, 0, sealed.length, opened, 0));
        assertArrayEquals(plain, opened);

        byte[] forged = sealed.clone();
        forged[0] ^= 1;
        open.init(nonce(7), 16);
        assertThrows(IllegalStateException.class,
                () -> open.doFinal(AAD, forged, 0, forged.length, new byte[64], 0), "a changed byte fails the tag");
        open.init(nonce(8), 16);
        assertThrows(IllegalStateException.class,
                () -> open.doFinal(AAD, sealed, 0, sealed.length, new byte[64], 0), "so does another record's nonce");
    }

    @Test
    void refusesAKeyOfAnotherSize() {
        assertThrows(IllegalStateException.class, () -> new RecordCipher(16, true).setKey(new byte[32], 0, 32));
    }

    private static RecordCipher sealer(byte[] key) {
        RecordCipher cipher = new RecordCipher(16, true);
        cipher.setKey(key, 0, key.length);
        return cipher;
    }

    private static byte[] seal(RecordCipher cipher, byte[] nonce, byte[] plain) {
        cipher.init(nonce, 16);
        byte[] out = new byte[cipher.getOutputSize(plain.length)];
        int written = cipher.doFinal(AAD, plain, 0, plain.length, out, 0);
        return Arrays.copyOf(out, written);
    }

    private static byte[] jdk(int mode, byte[] key, byte[] nonce, byte[] input) throws Exception {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(mode, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
        cipher.updateAAD(AAD);
        return cipher.doFinal(input);
    }

    private static byte[] key(int seed) {
        byte[] key = new byte[16];
        Arrays.fill(key, (byte) seed);
        return key;
    }

    private static byte[] nonce(int record) {
        byte[] nonce = new byte[12];
        nonce[11] = (byte) record;
        return nonce;
    }
}
