package io.ckc.gateway.core;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;

import java.time.Duration;

/**
 * Whether a new session may open on one shard now. Why: a gateway that restarts, or that a thousand nodes
 * move to at once, must not take them all in one go: each new session costs a Kafka write and its first
 * frames, and sessions admitted faster than that is done time out and come back as reconnects. So at most
 * CKC_ADMIT_PER_SECOND open per second (a token bucket shared out over the shards, at most a second's worth
 * saved up), and no more than CKC_ADMIT_PENDING per shard wait for their Connected event, which slows
 * admission down as Kafka slows down. Confined to the shard's loop.
 */
final class ConnectAdmission {

    private final Bucket tokens;
    private final int maxPending;
    /** Sessions opened whose Connected event is not yet in Kafka. */
    private int pending;

    ConnectAdmission(int perSecond, int shardCount, int maxPending, TimeMeter clock) {
        // perSecond / shardCount a second, exactly: perSecond every shardCount seconds
        this.tokens = TokenBuckets.confined(perSecond, Duration.ofSeconds(shardCount),
                Math.max(1, perSecond / shardCount), clock);
        this.maxPending = maxPending;
    }

    /** Takes a token if there is one and not too many sessions wait for Kafka; false: refuse the node for now. */
    boolean admit() {
        return pending < maxPending && tokens.tryConsume(1);
    }

    /** A session opened: its Connected event is on its way to Kafka. */
    void opening() {
        pending++;
    }

    /** That event is in Kafka, or failed. */
    void opened() {
        pending--;
    }
}
