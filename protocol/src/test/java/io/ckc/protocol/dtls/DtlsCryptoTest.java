package io.ckc.protocol.dtls;

import org.bouncycastle.tls.NamedGroup;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.crypto.TlsAgreement;
import org.bouncycastle.tls.crypto.TlsCrypto;
import org.bouncycastle.tls.crypto.TlsECConfig;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCryptoProvider;
import org.junit.jupiter.api.Test;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The handshakes' X25519, Bouncy Castle's, against the JDK's that it replaces; the records' AES-GCM. */
class DtlsCryptoTest {

    private static final TlsECConfig X25519 = new TlsECConfig(NamedGroup.x25519);

    private final DtlsCrypto ours = new DtlsCrypto(new SecureRandom());
    private final TlsCrypto jdk = new JcaTlsCryptoProvider().create(new SecureRandom());

    @Test
    void agreesOnTheSameSecretAsTheJdksX25519() throws Exception {
        for (int i = 0; i < 20; i++) {
            TlsAgreement node = ours.createECDomain(X25519).createECDH();
            TlsAgreement gateway = jdk.createECDomain(X25519).createECDH();
            byte[] nodePublic = node.generateEphemeral();
            byte[] gatewayPublic = gateway.generateEphemeral();
            assertEquals(32, nodePublic.length);
            node.receivePeerValue(gatewayPublic);
            gateway.receivePeerValue(nodePublic);
            assertArrayEquals(gateway.calculateSecret().extract(), node.calculateSecret().extract());
        }
    }

    @Test
    void refusesAPeerValueThatGivesNoSharedSecret() throws Exception {
        TlsAgreement node = ours.createECDomain(X25519).createECDH();
        node.generateEphemeral();
        node.receivePeerValue(new byte[32]); // u = 0, a point of small order: every private key gives zero
        assertThrows(TlsFatalAlert.class, node::calculateSecret);
        assertThrows(TlsFatalAlert.class, () -> ours.createECDomain(X25519).createECDH().receivePeerValue(new byte[31]));
    }

    @Test
    void leavesTheOtherGroupsToTheJdk() {
        assertEquals(jdk.createECDomain(new TlsECConfig(NamedGroup.secp256r1)).getClass(),
                ours.createECDomain(new TlsECConfig(NamedGroup.secp256r1)).getClass());
    }

    @Test
    void sealsAesGcmRecordsWithTheThreadsCipherAndLeavesTheOthersToTheJdk() throws Exception {
        assertInstanceOf(RecordCipher.class, ours.createAEADCipher(RecordCipher.AES_GCM, "AES", 16, true));
        assertThrows(NoSuchAlgorithmException.class, () -> ours.createAEADCipher("AES/CCM/NoPadding", "AES", 16, true),
                "left to the JDK, which has no CCM");
    }
}
