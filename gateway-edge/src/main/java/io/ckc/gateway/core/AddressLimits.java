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

    private static final long ANSWER_EVERY_NANOS = 1_000_000_000L;

    private final int perSecond;
    private final int burst;
    private final TimeMeter clock;
    private final Map<InetAddress, Bucket> buckets = new ConcurrentHashMap<>();
    /** When each address over its limit was last told so (the clock's nanoseconds). */
    private final Map<InetAddress, Long> answered = new ConcurrentHashMap<>();

    public AddressLimits(RateLimits limits, TimeMeter clock) {
        this.perSecond = limits.addressSessionsPerSecond();
        this.burst = limits.addressSessionsBurst();
        this.clock = clock;
    }

    /** Whether a new session from {@code source} may open now; takes its token if so. Any thread. */
    public boolean open(InetAddress source) {
        if (perSecond == 0 || source == null) {
            return true;
        }
        return buckets.computeIfAbsent(source, a -> TokenBuckets.shared(perSecond, Duration.ofSeconds(1), burst, clock))
                .tryConsume(1);
    }

    /**
     * Whether a refusal to {@code source} should be answered now: at most once a second per address, so that a flood's
     * refusals cost no reply each while a real node behind that address still hears BUSY and backs off. Any thread.
     */
    public boolean answerRefusal(InetAddress source) {
        long now = clock.currentTimeNanos();
        Long last = answered.get(source);
        if (last != null && now - last < ANSWER_EVERY_NANOS) {
            return false;
        }
        answered.put(source, now);
        return true;
    }

    /** Drops the buckets that are full: their addresses have not opened a session for a while. Any thread. */
    void sweep() {
        buckets.values().removeIf(bucket -> bucket.getAvailableTokens() >= burst);
        long now = clock.currentTimeNanos();
        answered.values().removeIf(last -> now - last >= ANSWER_EVERY_NANOS);
    }

    /** Addresses with a bucket or a recent answer now: for tests that prove the state goes away. */
    int remembered() {
        return buckets.size() + answered.size();
    }
}
