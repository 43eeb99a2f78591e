package io.ckc.gateway.core;

import io.ckc.protocol.records.Context;

import java.util.UUID;

/**
 * Whether a node's context goes to ckc.context: when it changed, and an unchanged one at least every
 * {@code CKC_CONTEXT_REFRESH_MS}, so rules over time windows keep seeing a node that stays put. Why not every
 * message's: a node sends the same position with most messages, and each report was a second Kafka write per
 * message and a record for every group definer to read.
 */
final class ContextRefresh {

    private final long refreshMs;

    /** @param refreshMs how often an unchanged context is written anyway; 0: every message's context is */
    ContextRefresh(long refreshMs) {
        this.refreshMs = refreshMs;
    }

    /** Whether {@code context} is to be written, given the one last written {@code lastMs} ago at {@code nowMs}. */
    boolean due(Context context, Context last, long lastMs, long nowMs) {
        return !context.equals(last) || refreshMs == 0 || nowMs - lastMs >= refreshMs;
    }

    /**
     * When a context written at {@code nowMs} counts as written, for {@link #due}: the first one of a session ({@code
     * last} null) as if written up to a period earlier, at a phase of the node's own, so that its refreshes fall at
     * that phase of the period. Why: nodes that connect together, as a fleet does after a gateway restart, would
     * otherwise all refresh within the same second, every period; 2,000 nodes at 6,000 msg/s then stalled the round
     * trip for half a second every 30 s (p50 10 ms to 560 ms), and the stepped search's knee with it.
     */
    long writtenAt(Context last, UUID node, long nowMs) {
        if (last != null || refreshMs == 0) {
            return nowMs;
        }
        return nowMs - Math.floorMod(node.getLeastSignificantBits() ^ node.getMostSignificantBits(), refreshMs);
    }
}
