package io.ckc.gateway.core;

import io.github.bucket4j.TimeMeter;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The per-node limits ({@link RateLimits}) of one shard's nodes: messages and payload bytes per second per session,
 * and nodes whose sessions open again and again ("flapping", as EMQX calls it), which are refused for a while: a
 * node that starts a new session for every few messages would otherwise escape its message limit and cost a Kafka
 * write per session. Counted are sessions announced (their Connected event in Kafka), not attempts: a node that
 * retries while Kafka is away is not flapping. Confined to the shard's loop.
 */
final class NodeLimits {

    /** One node's sessions in its current window, and until when it is refused (shard clock, ms). */
    private static final class Flaps {
        long windowStartMs;
        int sessions;
        long refusedUntilMs;
    }

    private final RateLimits limits;
    private final long byteBurst;
    private final TimeMeter clock;
    private final Map<UUID, Flaps> flaps = new HashMap<>();

    NodeLimits(RateLimits limits, int maxPayloadBytes, TimeMeter clock) {
        this.limits = limits;
        // a second's worth, and never less than one largest payload, which would otherwise never pass
        this.byteBurst = Math.max(limits.nodeBytesPerSecond(), maxPayloadBytes);
        this.clock = clock;
    }

    /**
     * Whether the session may send an uplink of {@code payloadBytes} now; takes a message's token and its bytes' if
     * so, nothing if not (the node sends it again later).
     */
    boolean uplink(Session session, int payloadBytes) {
        if (limits.nodeMessagesPerSecond() > 0 && session.messageTokens == null) {
            session.messageTokens = TokenBuckets.confined(limits.nodeMessagesPerSecond(), Duration.ofSeconds(1),
                    limits.nodeMessagesPerSecond(), clock);
        }
        if (limits.nodeBytesPerSecond() > 0 && session.byteTokens == null) {
            session.byteTokens = TokenBuckets.confined(limits.nodeBytesPerSecond(), Duration.ofSeconds(1), byteBurst,
                    clock);
        }
        if (session.messageTokens != null && session.messageTokens.getAvailableTokens() < 1) {
            return false;
        }
        if (session.byteTokens != null && !session.byteTokens.tryConsume(Math.max(1, payloadBytes))) {
            return false;
        }
        if (session.messageTokens != null) {
            session.messageTokens.tryConsume(1); // there is one: this loop alone takes from it
        }
        return true;
    }

    /** Whether the node is refused now for having flapped. */
    boolean flapping(UUID mnId, long nowMs) {
        Flaps node = flaps.get(mnId);
        return node != null && nowMs < node.refusedUntilMs;
    }

    /** A session of the node was announced; true if that makes it flapping (from now on it is refused for a while). */
    boolean announced(UUID mnId, long nowMs) {
        if (limits.flapSessions() == 0) {
            return false;
        }
        Flaps node = flaps.computeIfAbsent(mnId, id -> new Flaps());
        if (node.sessions == 0 || nowMs - node.windowStartMs >= limits.flapWindowMs()) {
            node.windowStartMs = nowMs;
            node.sessions = 0;
        }
        node.sessions++;
        if (node.sessions > limits.flapSessions()) {
            node.refusedUntilMs = nowMs + limits.flapPenaltyMs();
            node.sessions = 0;
            return true;
        }
        return false;
    }

    /** Forgets nodes whose window ended and whose penalty, if any, is over. */
    void sweep(long nowMs) {
        flaps.values().removeIf(node -> nowMs - node.windowStartMs >= limits.flapWindowMs()
                && nowMs >= node.refusedUntilMs);
    }

    /** Nodes remembered now: for tests that prove the state goes away. */
    int remembered() {
        return flaps.size();
    }
}
