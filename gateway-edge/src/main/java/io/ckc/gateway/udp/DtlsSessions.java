package io.ckc.gateway.udp;

import io.ckc.gateway.core.AddressLimits;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.gateway.core.NodeAuthenticator;
import io.ckc.protocol.dtls.DatagramQueue;
import io.ckc.protocol.dtls.DtlsSession;
import io.ckc.protocol.auth.Grants;
import io.ckc.protocol.auth.Identity;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The DTLS sessions of a gateway's reliable-UDP sockets, shared by their {@link DtlsHandler}s: each session by the
 * connection ID its node puts in every record (so a node found at a new address is the same session), handshakes in
 * progress by their node's address and counted by source address, and the threads that run them: Bouncy Castle's
 * handshake blocks while it waits for its node, so each has a thread of its own (made when needed, gone when idle),
 * the event loops never wait for one, and a handshake whose node never answers keeps only its own thread busy until
 * it times out. One address holds at most {@code handshakesPerAddress} of them. A session lives on the event loop of
 * the socket its node's shard writes on: records read on another socket are handed to it there.
 */
final class DtlsSessions {

    /** One node's session, from its first ClientHello with a valid cookie. */
    static final class Peer {
        final long connectionId;
        final DatagramQueue queue;
        /** Where the node is: the handshake's address, then that of the newest authenticated record. */
        volatile InetSocketAddress address;
        /** Set once the handshake is done. */
        volatile DtlsSession session;
        volatile Identity identity;
        /** What the node's credential grants it, from the store when the handshake was done. */
        volatile Grants grants = Grants.DEFAULT;
        /** The handler of the socket the session lives on, once the handshake is done. */
        volatile DtlsHandler owner;
        long heardMs;

        Peer(long connectionId, InetSocketAddress address, DtlsHandler handshakeSocket) {
            this.connectionId = connectionId;
            this.address = address;
            // the handshake answers on the socket the ClientHello came by, the session on its own
            this.queue = new DatagramQueue(datagram -> (owner != null ? owner : handshakeSocket).writeRaw(datagram, this.address));
        }

        UUID node() {
            return identity.node();
        }
    }

    final NodeAuthenticator authenticator;
    final GatewayMetrics metrics;
    final AddressLimits addressLimits;
    final long idleMs;
    final int maxHandshakes;
    final int handshakesPerAddress;
    /** Handshakes in progress by source address. */
    private final Map<InetAddress, Integer> handshakesFrom = new ConcurrentHashMap<>();
    final Map<Long, Peer> byConnectionId = new ConcurrentHashMap<>();
    final Map<InetSocketAddress, Peer> handshaking = new ConcurrentHashMap<>();
    final ExecutorService handshakes;
    /** The session of each node, whichever socket's loop it lives on. */
    final Map<UUID, Peer> byNode = new ConcurrentHashMap<>();
    /** The handler of the socket a node's shard writes on; set once the sockets are bound. */
    private volatile Function<UUID, DtlsHandler> ownerOf;

    DtlsSessions(NodeAuthenticator authenticator, GatewayMetrics metrics, AddressLimits addressLimits, long idleMs,
                 int handshakesPerAddress, int maxHandshakes) {
        this.authenticator = authenticator;
        this.metrics = metrics;
        this.addressLimits = addressLimits;
        this.idleMs = idleMs;
        this.maxHandshakes = maxHandshakes;
        this.handshakesPerAddress = handshakesPerAddress;
        this.handshakes = new ThreadPoolExecutor(0, maxHandshakes, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                new DefaultThreadFactory("dtls-handshake", true));
    }

    void route(Function<UUID, DtlsHandler> ownerOf) {
        this.ownerOf = ownerOf;
    }

    DtlsHandler ownerOf(UUID node) {
        return ownerOf.apply(node);
    }

    /** A new peer at the address, under a connection ID no other has. */
    Peer newPeer(InetSocketAddress address, DtlsHandler handshakeSocket) {
        while (true) {
            Peer peer = new Peer(ThreadLocalRandom.current().nextLong(), address, handshakeSocket);
            if (byConnectionId.putIfAbsent(peer.connectionId, peer) == null) {
                return peer;
            }
        }
    }

    /** Counts a handshake from the address, unless it has as many in progress as it may. */
    boolean startHandshake(InetAddress source) {
        boolean[] started = {false};
        handshakesFrom.compute(source, (address, inProgress) -> {
            int now = inProgress == null ? 0 : inProgress;
            if (now >= handshakesPerAddress) {
                return inProgress;
            }
            started[0] = true;
            return now + 1;
        });
        return started[0];
    }

    /** A handshake that {@link #startHandshake} counted ended. */
    void endHandshake(InetAddress source) {
        handshakesFrom.computeIfPresent(source, (address, inProgress) -> inProgress <= 1 ? null : inProgress - 1);
    }

    /** The node as its handshake authenticated it, and what its credential grants it: read by the shard that opens its session. */
    UdpShard.NodeRights rights(UUID node) {
        Peer peer = byNode.get(node);
        return peer == null ? new UdpShard.NodeRights(node, Grants.DEFAULT) : new UdpShard.NodeRights(peer.node(), peer.grants);
    }

    void close() {
        handshakes.shutdownNow();
    }
}
