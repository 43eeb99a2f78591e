package io.ckc.gateway.core;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * New sessions per second from one source address ({@link RateLimits}): a bucket per address that opened a session
 * lately, shared by the shards (one address's nodes hash to every shard), dropped once it is full again, so the
 * memory follows the addresses active within about a burst's refill time, not every address ever seen.
 */
public final class AddressLimits {

    private final int perSecond;
    private final int burst;
    private final TimeMeter clock;
    private final Map<InetAddress, Bucket> buckets = new ConcurrentHashMap<>();

    public AddressLimits(RateLimits limits, TimeMeter clock) {
        this.perSecond = limits.addressSessionsPerSecond();
        this.burst = limits.addressSessionsBurst();
        this.clock = clock;
    }

    /** Whether a new session from {@code source} may open now; takes its token if so. Any thread. */
    boolean open(InetAddress source) {
        if (perSecond == 0 || source == null) {
            return true;
        }
        return buckets.computeIfAbsent(source, a -> TokenBuckets.shared(perSecond, Duration.ofSeconds(1), burst, clock))
                .tryConsume(1);
    }

    /** Drops the buckets that are full: their addresses have not opened a session for a while. Any thread. */
    void sweep() {
        buckets.values().removeIf(bucket -> bucket.getAvailableTokens() >= burst);
    }

    /** Addresses with a bucket now: for tests that prove the state goes away. */
    int remembered() {
        return buckets.size();
    }
}
