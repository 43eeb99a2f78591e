package io.ckc.protocol.dtls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Our record layer between two ends that share keys: sealing, opening, the replay window, alerts. */
class SessionRecordsTest {

    /**
     * Keys of this test's own: the JDK refuses to seal twice with one key and nonce on a thread's cipher, which a key
     * shared by two tests would do.
     */
    private final byte[] nodeKey = random(16);
    private final byte[] gatewayKey = random(16);
    private final byte[] nodeSalt = random(4);
    private final byte[] gatewaySalt = random(4);
    private static final long NODE_ID = 0x1111L;
    private static final long GATEWAY_ID = 0x2222L;

    /** The node's end, writing from sequence number 5, and the gateway's, which has seen the node's up to 4. */
    private final SessionRecords node = new SessionRecords(nodeKey, nodeSalt, gatewayKey, gatewaySalt, GATEWAY_ID,
            NODE_ID, 5, 9);
    private final SessionRecords gateway = new SessionRecords(gatewayKey, gatewaySalt, nodeKey, nodeSalt, NODE_ID,
            GATEWAY_ID, 10, 4);

    private final List<String> opened = new ArrayList<>();
    private final List<Boolean> newest = new ArrayList<>();

    private int open(SessionRecords at, byte[] datagram) throws IOException {
        return at.open(Unpooled.wrappedBuffer(datagram), null, (plaintext, sender, isNewest) -> {
            opened.add(plaintext.toString(StandardCharsets.UTF_8));
            newest.add(isNewest);
        });
    }

    @Test
    void opensWhatTheOtherEndSealedAndOnlyOnce() throws IOException {
        byte[] one = node.seal(text("one"));
        ByteBuf header = Unpooled.wrappedBuffer(one);
        assertEquals(DtlsRecords.TLS12_CID, DtlsRecords.contentType(header));
        assertEquals(SessionRecords.EPOCH, DtlsRecords.epoch(header));
        assertEquals(GATEWAY_ID, DtlsRecords.connectionId(header), "the node names the gateway's ID");
        assertEquals(5, header.getLong(3) & 0xFFFF_FFFF_FFFFL, "from the sequence number it was given");

        assertEquals(1, open(gateway, one));
        assertEquals(0, open(gateway, one), "a replay");
        byte[] two = node.seal(text("two"));
        byte[] three = node.seal(text("three"));
        assertEquals(1, open(gateway, three));
        assertEquals(1, open(gateway, two), "late, but inside the window and not seen");
        assertEquals(0, open(gateway, two));
        assertEquals(List.of("one", "three", "two"), opened);
        assertEquals(List.of(true, true, false), newest, "a late record is not the newest");

        assertEquals(1, open(node, gateway.seal(text("back"))));
        assertEquals("back", opened.get(3));
    }

    @Test
    void dropsRecordsThatAreForgedAddressedElsewhereOrOlderThanTheWindow() throws IOException {
        byte[] first = node.seal(text("first"));
        for (int i = 0; i < 64; i++) {
            node.seal(text("lost"));
        }
        assertEquals(1, open(gateway, node.seal(text("after"))));
        assertEquals(0, open(gateway, first), "64 records behind the newest: out of the window");

        byte[] forged = node.seal(text("forged"));
        forged[forged.length - 1] ^= 1;
        assertEquals(0, open(gateway, forged));
        byte[] elsewhere = node.seal(text("elsewhere"));
        elsewhere[DtlsRecords.CONNECTION_ID_OFFSET + 7] ^= 1;
        assertEquals(0, open(gateway, elsewhere), "another session's ID");
        assertEquals(0, open(gateway, new byte[] {25, (byte) 0xFE, (byte) 0xFD, 0, 1}), "cut short");

        // the window starts full: what the record layer before it opened is never opened again
        SessionRecords fresh = new SessionRecords(gatewayKey, gatewaySalt, nodeKey, nodeSalt, NODE_ID, GATEWAY_ID, 10, 4);
        SessionRecords replayed = new SessionRecords(nodeKey, nodeSalt, gatewayKey, gatewaySalt, GATEWAY_ID,
                NODE_ID, 3, 0);
        assertEquals(0, open(fresh, replayed.seal(text("three"))));
        assertEquals(0, open(fresh, replayed.seal(text("four"))));
        assertEquals(1, open(fresh, replayed.seal(text("five"))));
        assertEquals(List.of("after", "five"), opened);
    }

    @Test
    void twoRecordsInOneDatagramAreBothOpened() throws IOException {
        byte[] a = node.seal(text("a"));
        byte[] b = node.seal(text("b"));
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        assertEquals(2, open(gateway, both));
        assertEquals(List.of("a", "b"), opened);
    }

    @Test
    void closeNotifyEndsTheSession() throws IOException {
        assertThrows(IOException.class, () -> open(gateway, node.closeNotify()));
        assertEquals(List.of(), opened);
    }

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    private static byte[] random(int length) {
        byte[] bytes = new byte[length];
        new java.security.SecureRandom().nextBytes(bytes);
        return bytes;
    }
}
