package io.ckc.jobs.delivery;

import io.ckc.protocol.records.Unicast;
import org.apache.flink.util.ParameterTool;

import java.io.Serializable;
import java.time.Duration;
import java.util.Locale;

/**
 * The Mobile Temporary Disconnect service's settings (paper section 6), all flags of the delivery job:
 * <ul>
 *   <li>{@code --mtd} [true]: false turns the buffer off, so a message for a node that is not
 *       connected is dropped at once (the paper's "without MTD" runs)</li>
 *   <li>{@code --mtd-default-ttl-ms} [300000]: the TTL of a message whose sender gave none</li>
 *   <li>{@code --mtd-force-ttl-ms} [unset]: one TTL for every message, whatever the sender said</li>
 *   <li>{@code --mtd-max-buffered} [1000]: messages held per node, in flight to it or waiting for it</li>
 *   <li>{@code --mtd-drop-policy} [oldest]: which message a full buffer drops, {@code oldest} (the
 *       buffered message closest to expiring anyway) or {@code newest} (the one arriving)</li>
 * </ul>
 */
public record MtdSettings(boolean enabled, long defaultTtlMs, Long forceTtlMs, int maxBufferedPerMn,
                          DropPolicy dropPolicy) implements Serializable {

    public enum DropPolicy { OLDEST, NEWEST }

    public static final MtdSettings DEFAULT = new MtdSettings(true, Duration.ofMinutes(5).toMillis(), null, 1_000,
            DropPolicy.OLDEST);

    public MtdSettings {
        if (defaultTtlMs <= 0 || (forceTtlMs != null && forceTtlMs <= 0) || maxBufferedPerMn <= 0 || dropPolicy == null) {
            throw new IllegalArgumentException("MTD settings: TTLs and the buffer bound must be positive");
        }
    }

    public static MtdSettings fromArgs(ParameterTool params) {
        String force = params.get("mtd-force-ttl-ms");
        return new MtdSettings(
                params.getBoolean("mtd", DEFAULT.enabled),
                params.getLong("mtd-default-ttl-ms", DEFAULT.defaultTtlMs),
                force == null ? null : Long.parseLong(force),
                params.getInt("mtd-max-buffered", DEFAULT.maxBufferedPerMn),
                DropPolicy.valueOf(params.get("mtd-drop-policy", "oldest").toUpperCase(Locale.ROOT)));
    }

    /** The message's TTL: forced, else the sender's, else the default. */
    public long ttlOf(Unicast unicast) {
        if (forceTtlMs != null) {
            return forceTtlMs;
        }
        return unicast.ttlMs() != null && unicast.ttlMs() > 0 ? unicast.ttlMs() : defaultTtlMs;
    }

    /** When the message stops being deliverable, in epoch milliseconds. */
    public long expiresAt(Unicast unicast) {
        long ttl = ttlOf(unicast);
        return unicast.createdAt() > Long.MAX_VALUE - ttl ? Long.MAX_VALUE : unicast.createdAt() + ttl;
    }

    public MtdSettings withEnabled(boolean on) {
        return new MtdSettings(on, defaultTtlMs, forceTtlMs, maxBufferedPerMn, dropPolicy);
    }
}
