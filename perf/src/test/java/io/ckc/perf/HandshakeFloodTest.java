package io.ckc.perf;

import io.ckc.protocol.dtls.DtlsPeers;
import org.bouncycastle.tls.DTLSRequest;
import org.bouncycastle.tls.DTLSVerifier;
import org.bouncycastle.tls.DatagramSender;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The flood's ClientHellos are ones a gateway's cookie check lets through, so each may start a handshake. */
class HandshakeFloodTest {

    private static final byte[] CLIENT = {127, 0, 0, 2, 0x13, (byte) 0x88};

    @Test
    void aClientHelloWithTheCookieItWasAnsweredPassesTheCookieCheck() throws Exception {
        DTLSVerifier verifier = new DTLSVerifier(DtlsPeers.crypto());
        List<byte[]> answers = new ArrayList<>();
        DatagramSender answer = new DatagramSender() {
            @Override
            public int getSendLimit() {
                return 1500;
            }

            @Override
            public void send(byte[] buf, int off, int len) {
                answers.add(java.util.Arrays.copyOfRange(buf, off, off + len));
            }
        };
        byte[] hello = HandshakeFlood.clientHello();
        assertThat(verifier.verifyRequest(CLIENT, hello, 0, hello.length, answer)).as("no cookie yet").isNull();
        assertThat(answers).hasSize(1);
        byte[] cookie = HandshakeFlood.cookie(ByteBuffer.wrap(answers.get(0)));
        assertThat(cookie).isNotNull().hasSizeGreaterThan(0);

        byte[] again = HandshakeFlood.withCookie(hello, cookie);
        DTLSRequest request = verifier.verifyRequest(CLIENT, again, 0, again.length, answer);
        assertThat(request).as("the cookie proves the address").isNotNull();
        assertThat(answers).hasSize(1);
        // the same ClientHello from another port is answered with a cookie again, not let through
        byte[] elsewhere = CLIENT.clone();
        elsewhere[5]++;
        assertThat(verifier.verifyRequest(elsewhere, again, 0, again.length, answer)).isNull();
        assertThat(HandshakeFlood.cookie(ByteBuffer.wrap(hello))).as("a ClientHello holds no cookie to read").isNull();
    }
}
