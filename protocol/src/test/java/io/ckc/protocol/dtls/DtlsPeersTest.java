package io.ckc.protocol.dtls;

import io.ckc.protocol.auth.NodeKeys;
import io.ckc.protocol.auth.Identity;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.bouncycastle.tls.DTLSRequest;
import org.bouncycastle.tls.DTLSVerifier;
import org.bouncycastle.tls.DatagramSender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The handshake and the record protection between a node and a gateway, over in-memory datagrams. */
class DtlsPeersTest {

    private static final InetSocketAddress NODE_ADDRESS = new InetSocketAddress("10.0.0.1", 5000);
    private static final InetSocketAddress MOVED_ADDRESS = new InetSocketAddress("10.0.0.2", 6000);
    private static final UUID NODE = UUID.fromString("00000000-0000-0000-0000-000000000001");
    private static final byte[] KEY = NodeKeys.nodeKey("node secret".getBytes(StandardCharsets.UTF_8), NODE);

    private final ExecutorService threads = Executors.newCachedThreadPool();
    /** Datagrams the node sent that the gateway has not read yet. */
    private final BlockingQueue<byte[]> toGateway = new LinkedBlockingQueue<>();
    private final List<byte[]> gatewaySent = new ArrayList<>();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    /** A node and a gateway that finished their handshake. */
    private record Pair(DtlsSession node, DtlsSession gateway, Identity identity) {
    }

    private Pair handshake(Identity identity, byte[] nodeKey, Map<Identity, byte[]> store) throws Exception {
        return handshake(identity, nodeKey, store, false);
    }

    /**
     * @param lateFinished whether the gateway's final flight reaches the node only after the node, not hearing it in
     *                     time, sent its own final flight again (those datagrams stay for the gateway's session)
     */
    private Pair handshake(Identity identity, byte[] nodeKey, Map<Identity, byte[]> store, boolean lateFinished)
            throws Exception {
        DatagramQueue nodeQueue = new DatagramQueue(toGateway::add);
        List<byte[]> held = new ArrayList<>();
        DatagramQueue gatewayQueue = new DatagramQueue(d -> {
            gatewaySent.add(d);
            ByteBuf record = Unpooled.wrappedBuffer(d);
            boolean finalFlight = DtlsRecords.contentType(record) == DtlsRecords.CHANGE_CIPHER_SPEC
                    || DtlsRecords.epoch(record) > 0;
            if (lateFinished && finalFlight && held.size() < 2) {
                held.add(d);
            } else {
                nodeQueue.offer(d, null);
            }
        });
        CompletableFuture<DtlsSession> node = CompletableFuture.supplyAsync(() -> {
            try {
                return DtlsPeers.connect(nodeQueue, identity, nodeKey, 0x1111L);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, threads);
        // the gateway answers ClientHellos statelessly until one carries its cookie, as the gateway's socket does
        DTLSVerifier verifier = new DTLSVerifier(DtlsPeers.CRYPTO);
        DatagramSender answer = new DatagramSender() {
            @Override
            public int getSendLimit() {
                return DtlsRecords.MAX_RECORD_BYTES;
            }

            @Override
            public void send(byte[] buf, int off, int len) {
                byte[] datagram = new byte[len];
                System.arraycopy(buf, off, datagram, 0, len);
                nodeQueue.offer(datagram, null);
            }
        };
        DTLSRequest request = null;
        while (request == null) {
            byte[] hello = toGateway.poll(10, TimeUnit.SECONDS);
            assertNotNull(hello, "the node sent its ClientHello");
            request = verifier.verifyRequest(new byte[] {10, 0, 0, 1}, hello, 0, hello.length, answer);
        }
        DTLSRequest verified = request;
        CompletableFuture<DtlsPeers.Accepted> gateway = CompletableFuture.supplyAsync(() -> {
            try {
                return DtlsPeers.accept(gatewayQueue, verified, 0x2222L, id -> Optional.ofNullable(store.get(id)));
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, threads);
        CompletableFuture<Void> relay = CompletableFuture.runAsync(() -> {
            while (!gateway.isDone()) {
                try {
                    byte[] datagram = toGateway.poll(10, TimeUnit.MILLISECONDS);
                    if (datagram != null) {
                        gatewayQueue.offer(datagram, NODE_ADDRESS);
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, threads);
        DtlsPeers.Accepted accepted = gateway.get(20, TimeUnit.SECONDS);
        relay.get(5, TimeUnit.SECONDS);
        if (lateFinished) {
            byte[] again = toGateway.poll(10, TimeUnit.SECONDS);
            assertNotNull(again, "the node sent its final flight again");
            toGateway.add(again);
            held.forEach(d -> nodeQueue.offer(d, null));
        }
        return new Pair(node.get(20, TimeUnit.SECONDS), accepted.session(), accepted.identity());
    }

    /** What the gateway opened of the datagrams the node sent, from the address given. */
    private List<String> gatewayOpens(DtlsSession gateway, InetSocketAddress from, List<Boolean> newest)
            throws IOException {
        byte[] datagram;
        while ((datagram = toGateway.poll()) != null) {
            gateway.queue().offer(datagram, from);
        }
        List<String> opened = new ArrayList<>();
        gateway.drain((plaintext, sender, isNewest) -> {
            opened.add(plaintext.toString(StandardCharsets.UTF_8));
            newest.add(isNewest);
            assertEquals(from, sender);
        });
        return opened;
    }

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    @Test
    void aNodeWithItsKeyGetsASessionNamedByConnectionIds() throws Exception {
        Pair pair = handshake(Identity.of(NODE), KEY, Map.of(Identity.of(NODE), KEY));
        assertEquals(Identity.of(NODE), pair.identity());

        pair.node().send(text("hello"));
        byte[] sealed = toGateway.peek();
        assertNotNull(sealed);
        ByteBuf record = Unpooled.wrappedBuffer(sealed);
        assertTrue(DtlsRecords.isRecord(record));
        assertTrue(DtlsRecords.hasConnectionId(record));
        assertEquals(0x2222L, DtlsRecords.connectionId(record), "the node names the gateway's ID for its session");
        assertFalse(new String(sealed, StandardCharsets.ISO_8859_1).contains("hello"), "the payload is sealed");

        List<Boolean> newest = new ArrayList<>();
        assertFalse(pair.gateway().ownRecords(), "Bouncy Castle's record layer until the node's first data record");
        assertEquals(List.of("hello"), gatewayOpens(pair.gateway(), NODE_ADDRESS, newest));
        assertEquals(List.of(true), newest);
        assertTrue(pair.gateway().ownRecords(), "the node's handshake is done: our record layer takes over");

        // sealed by ours, opened by Bouncy Castle's
        gatewaySent.clear();
        pair.gateway().send(text("welcome"));
        assertEquals(0x1111L, DtlsRecords.connectionId(Unpooled.wrappedBuffer(gatewaySent.get(0))),
                "the gateway names the node's ID");
        List<String> atNode = new ArrayList<>();
        pair.node().drain((plaintext, sender, isNewest) -> atNode.add(plaintext.toString(StandardCharsets.UTF_8)));
        assertEquals(List.of("welcome"), atNode);
        assertTrue(pair.node().ownRecords());

        // ours at both ends, both ways, until the gateway closes the session
        pair.node().send(text("ping"));
        assertEquals(0x2222L, DtlsRecords.connectionId(Unpooled.wrappedBuffer(toGateway.peek())));
        assertEquals(List.of("ping"), gatewayOpens(pair.gateway(), NODE_ADDRESS, new ArrayList<>()));
        pair.gateway().send(text("pong"));
        pair.gateway().close();
        atNode.clear();
        assertThrows(IOException.class, () -> pair.node().drain(
                (plaintext, sender, isNewest) -> atNode.add(plaintext.toString(StandardCharsets.UTF_8))),
                "close_notify ends the node's session");
        assertEquals(List.of("pong"), atNode, "after what was sent before it");
    }

    @Test
    void forgedAndReplayedRecordsAreDroppedAndAMovedNodeIsFollowed() throws Exception {
        Pair pair = handshake(Identity.of(NODE), KEY, Map.of(Identity.of(NODE), KEY));
        pair.node().send(text("one"));
        byte[] captured = toGateway.peek().clone();
        assertEquals(List.of("one"), gatewayOpens(pair.gateway(), NODE_ADDRESS, new ArrayList<>()));

        // the same record again, from an attacker's address: a replay, dropped
        toGateway.add(captured);
        pair.gateway().queue().offer(toGateway.poll(), MOVED_ADDRESS);
        assertEquals(new DtlsSession.Opened(1, 0), pair.gateway().drain((plaintext, sender, isNewest) -> { }),
                "a replay is not authenticated");
        // the record altered: fails authentication, dropped, and the session goes on
        byte[] forged = captured.clone();
        forged[forged.length - 1] ^= 1;
        toGateway.add(forged);
        assertEquals(List.of(), gatewayOpens(pair.gateway(), MOVED_ADDRESS, new ArrayList<>()));

        // the real node from a new address: opened, and the newest, so its address may be followed
        pair.node().send(text("two"));
        List<Boolean> newest = new ArrayList<>();
        assertEquals(List.of("two"), gatewayOpens(pair.gateway(), MOVED_ADDRESS, newest));
        assertEquals(List.of(true), newest);

        // two records that arrive in the reverse order: the older one is opened but is not the newest, so a record
        // delayed on the way from an old address moves nothing
        pair.node().send(text("three"));
        byte[] three = toGateway.poll();
        pair.node().send(text("four"));
        toGateway.add(three);
        newest.clear();
        assertEquals(List.of("four", "three"), gatewayOpens(pair.gateway(), MOVED_ADDRESS, newest));
        assertEquals(List.of(true, false), newest);
    }

    @Test
    void onceOursTakesOverADatagramIsOpenedAtOnceUnlessQueuedOnesWaitBeforeIt() throws Exception {
        Pair pair = handshake(Identity.of(NODE), KEY, Map.of(Identity.of(NODE), KEY));
        List<String> opened = new ArrayList<>();
        DtlsSession.Receiver receiver = (plaintext, sender, isNewest) -> opened.add(plaintext.toString(StandardCharsets.UTF_8));
        pair.node().send(text("first"));
        ByteBuf first = Unpooled.wrappedBuffer(toGateway.poll());
        assertEquals(null, pair.gateway().openNow(first, NODE_ADDRESS, receiver), "Bouncy Castle's reads from the queue");
        pair.gateway().queue().offer(ByteBufUtil.getBytes(first), NODE_ADDRESS);
        pair.gateway().drain(receiver);

        pair.node().send(text("second"));
        pair.node().send(text("third"));
        pair.gateway().queue().offer(toGateway.poll(), NODE_ADDRESS);
        ByteBuf third = Unpooled.wrappedBuffer(toGateway.poll());
        assertEquals(null, pair.gateway().openNow(third, NODE_ADDRESS, receiver), "the second waits before it");
        pair.gateway().queue().offer(ByteBufUtil.getBytes(third), NODE_ADDRESS);
        assertEquals(new DtlsSession.Opened(2, 2), pair.gateway().drain(receiver));

        pair.node().send(text("fourth"));
        assertEquals(new DtlsSession.Opened(1, 1),
                pair.gateway().openNow(Unpooled.wrappedBuffer(toGateway.poll()), NODE_ADDRESS, receiver));
        assertEquals(List.of("first", "second", "third", "fourth"), opened);
    }

    @Test
    void aDrainCountsWhatItReadEvenWhatArrivedWhileItRan() throws Exception {
        Pair pair = handshake(Identity.of(NODE), KEY, Map.of(Identity.of(NODE), KEY));
        pair.node().send(text("one"));
        pair.node().send(text("two"));
        pair.gateway().queue().offer(toGateway.poll(), NODE_ADDRESS);
        byte[] second = toGateway.poll();
        List<String> opened = new ArrayList<>();
        // the second arrives while the drain runs, as from another event loop: this drain reads it, and says so
        DtlsSession.Opened first = pair.gateway().drain((plaintext, sender, isNewest) -> {
            opened.add(plaintext.toString(StandardCharsets.UTF_8));
            if (opened.size() == 1) {
                pair.gateway().queue().offer(second, NODE_ADDRESS);
            }
        });
        assertEquals(List.of("one", "two"), opened);
        assertEquals(new DtlsSession.Opened(2, 2), first);
        assertEquals(new DtlsSession.Opened(0, 0), pair.gateway().drain((plaintext, sender, isNewest) -> { }),
                "nothing left for the next drain to count, so nothing to call forged");
    }

    @Test
    void aRetransmittedFinishedIsAuthenticatedThoughItCarriesNoData() throws Exception {
        Pair pair = handshake(Identity.of(NODE), KEY, Map.of(Identity.of(NODE), KEY), true);
        // what the node sent again reaches the established session: genuine records, none of them data
        byte[] datagram;
        while ((datagram = toGateway.poll(200, TimeUnit.MILLISECONDS)) != null) {
            pair.gateway().queue().offer(datagram, NODE_ADDRESS);
        }
        List<String> opened = new ArrayList<>();
        int authenticated = pair.gateway().drain((plaintext, sender, isNewest) -> opened.add("data")).authenticated();
        assertEquals(List.of(), opened);
        assertTrue(authenticated > 0, "a retransmission is the node's own record, not a forgery");

        pair.node().send(text("after"));
        assertEquals(List.of("after"), gatewayOpens(pair.gateway(), NODE_ADDRESS, new ArrayList<>()));
    }

    /**
     * A ClientHello the gateway never answers goes again after {@link DtlsPeers#NODE_HANDSHAKE_RESEND_MS}, not after
     * Bouncy Castle's second: a dead gateway's nodes lost one in a handshake with the next gateway and came back a
     * second late.
     */
    @Test
    void anUnansweredClientHelloGoesAgainWithinAQuarterSecond() throws Exception {
        BlockingQueue<Long> sentAtNanos = new LinkedBlockingQueue<>();
        DatagramQueue unanswered = new DatagramQueue(datagram -> sentAtNanos.add(System.nanoTime()));
        CompletableFuture<?> connect = CompletableFuture.runAsync(() -> {
            try {
                DtlsPeers.connect(unanswered, Identity.of(NODE), KEY, 0x1111L);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, threads);
        Long first = sentAtNanos.poll(10, TimeUnit.SECONDS);
        Long second = sentAtNanos.poll(10, TimeUnit.SECONDS);
        unanswered.close();
        assertNotNull(first, "the node sent its ClientHello");
        assertNotNull(second, "the node sent its ClientHello again");
        long gapMs = TimeUnit.NANOSECONDS.toMillis(second - first);
        assertTrue(gapMs >= DtlsPeers.NODE_HANDSHAKE_RESEND_MS - 10 && gapMs < 900,
                "sent again after " + gapMs + " ms");
        assertFalse(connect.isDone(), "the handshake still waits for the gateway"); // stopped by stop()
    }

    @Test
    void aWrongKeyOrAnUnknownNodeGetsNoSession() {
        Map<Identity, byte[]> store = Map.of(Identity.of(NODE), KEY);
        byte[] wrong = NodeKeys.nodeKey("another secret".getBytes(StandardCharsets.UTF_8), NODE);
        Exception wrongKey = assertThrows(Exception.class, () -> handshake(Identity.of(NODE), wrong, store));
        assertNotNull(wrongKey);
        UUID stranger = UUID.fromString("00000000-0000-0000-0000-000000000002");
        assertThrows(Exception.class, () -> handshake(Identity.of(stranger), KEY, store));
    }

    @Test
    void aFleetsNodesDeriveTheirKeysFromTheFleetKey() throws Exception {
        byte[] fleetKey = NodeKeys.newSecret();
        Identity member = Identity.of("perf", NODE);
        Pair pair = handshake(member, NodeKeys.fleetNodeKey(fleetKey, "perf", NODE),
                Map.of(member, NodeKeys.fleetNodeKey(fleetKey, "perf", NODE)));
        assertEquals(member, pair.identity());
        assertArrayEquals(NodeKeys.fleetNodeKey(fleetKey, "perf", NODE), NodeKeys.fleetNodeKey(fleetKey, "perf", NODE));
        assertFalse(java.util.Arrays.equals(NodeKeys.fleetNodeKey(fleetKey, "perf", NODE),
                NodeKeys.fleetNodeKey(fleetKey, "other", NODE)));
    }

    @Test
    void identitiesHaveOneSpelling() {
        assertEquals(Optional.of(Identity.of("perf", NODE)), Identity.parse(("perf/" + NODE).getBytes(StandardCharsets.UTF_8)));
        assertEquals(Optional.of(Identity.of(NODE)), Identity.parse(NODE.toString().getBytes(StandardCharsets.UTF_8)));
        assertEquals(Optional.empty(), Identity.parse("0-0-0-0-1".getBytes(StandardCharsets.UTF_8)));
        assertEquals(Optional.empty(), Identity.parse(("/" + NODE).getBytes(StandardCharsets.UTF_8)));
        assertEquals(Optional.empty(), Identity.parse("nobody".getBytes(StandardCharsets.UTF_8)));
    }
}
