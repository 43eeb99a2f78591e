package io.ckc.gateway.core;

import io.ckc.protocol.records.Context;

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
}
