package io.ckc.gateway.core;

import io.ckc.protocol.auth.Grants;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.Unicast;
import io.github.bucket4j.Bucket;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * A mobile node's session on this gateway, as the core keeps it, whatever protocol carries it.
 * Identified by node id and epoch, never by address. Confined to its shard's event loop.
 */
public final class Session {

    final UUID mnId;
    final long epoch;
    final NodeLink link;
    /**
     * Unicasts sent but not yet acknowledged, by delivery id: they go to ckc.unsent if the session breaks. Null while
     * there is none, as for most sessions most of the time (an empty map is 48 bytes, a sixth of an idle session).
     */
    private Map<UUID, Unicast> unacknowledged;
    /**
     * Those of them that came as a broadcast, not from the delivery job: their acknowledgement stays here.
     * No set of its own until a broadcast comes: most sessions never hold one unacknowledged.
     */
    Set<UUID> broadcasts = Collections.emptySet();
    /**
     * The mini-buffer (paper 4.2, when on): the last two unicasts the node acknowledged, oldest first. Null until the
     * node acknowledges one with the mini-buffer on.
     */
    ArrayDeque<Unicast> recentlyAcknowledged;
    long lastHeardMs;
    /** Set once the Connected event is in Kafka and the node was told it is connected. */
    boolean announced;
    /** The context last written to ckc.context for this node, and when (the shard's clock, ms). */
    Context reportedContext;
    long reportedContextMs;
    /**
     * Null while the node's messages are written as they come. Once a write failed (PUBLISH_FAILED), the ids of the
     * messages refused since: the node sends them again in order, and until the first of them comes back, every
     * later message is refused too, so that none overtakes a refused one in Kafka.
     */
    Set<UUID> refusedUplinks;
    /** When a node that acknowledged a handover is considered gone even if it never says so; 0 if not leaving. */
    long leavingDeadlineMs;
    /** The node's message and payload-byte allowances ({@link NodeLimits}); null until its first uplink, or if off. */
    Bucket messageTokens;
    Bucket byteTokens;

    /** Where the session is in its shard's array ({@link ShardSessions}). */
    int slot;

    /** What the node's credential lets it publish and groupcast to. */
    final Grants grants;

    Session(UUID mnId, long epoch, Grants grants, Function<Session, NodeLink> linkFactory, long nowMs) {
        this.grants = grants;
        this.mnId = mnId;
        this.epoch = epoch;
        this.lastHeardMs = nowMs;
        this.link = linkFactory.apply(this);
    }

    /** Holds a delivery until the node answers it; false if it was held already. */
    boolean hold(UUID deliveryId, Unicast unicast) {
        if (unacknowledged == null) {
            unacknowledged = new HashMap<>(4);
        }
        return unacknowledged.put(deliveryId, unicast) == null;
    }

    /** Lets a delivery go: its unicast, or null if it was not held. */
    Unicast release(UUID deliveryId) {
        if (unacknowledged == null) {
            return null;
        }
        Unicast unicast = unacknowledged.remove(deliveryId);
        if (unacknowledged.isEmpty()) {
            unacknowledged = null;
        }
        return unicast;
    }

    /** The deliveries held, in no order; read-only. */
    Map<UUID, Unicast> held() {
        return unacknowledged == null ? Map.of() : Collections.unmodifiableMap(unacknowledged);
    }

    /** Lets every delivery go (the session ended). */
    void releaseAll() {
        unacknowledged = null;
    }

    public UUID mnId() {
        return mnId;
    }

    public long epoch() {
        return epoch;
    }

    public NodeLink link() {
        return link;
    }

    /** Whether the node was told it is connected; until then it takes deliveries but is not counted. */
    public boolean announced() {
        return announced;
    }

    /** Connected and staying: announced, and not on its way to another gateway after a handover. */
    boolean isServing() {
        return announced && leavingDeadlineMs == 0;
    }

    @Override
    public String toString() {
        return "Session[" + mnId + " epoch " + epoch + "]";
    }
}
