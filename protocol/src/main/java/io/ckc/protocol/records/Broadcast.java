package io.ckc.protocol.records;

import java.util.Arrays;
import java.util.Objects;

/**
 * A message for every mobile node connected when it arrives, on {@code ckc.broadcast}. Every
 * gateway reads the whole topic and delivers it to each of its nodes as a unicast with this message
 * id; a delivery that fails goes to {@code ckc.unsent} like any other, so the MTD keeps it for the
 * node while its TTL lasts.
 *
 * @param ttlMs how long it stays deliverable after {@code createdAt}; null for no deadline at the gateway
 */
public record Broadcast(String messageId, String sender, byte[] payload, Long ttlMs, long createdAt) {

    /** The unicast one connected node gets. */
    public Unicast toNode(String mnId) {
        return new Unicast(messageId, sender, mnId, payload, ttlMs, createdAt, false, Unicast.BROADCAST, null, null);
    }

    /** The deadline by the TTL in epoch ms, or null for none. */
    public Long expiresAt() {
        return ttlMs == null || ttlMs <= 0 ? null : createdAt + ttlMs;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Broadcast b && createdAt == b.createdAt && Objects.equals(messageId, b.messageId)
                && Objects.equals(sender, b.sender) && Arrays.equals(payload, b.payload) && Objects.equals(ttlMs, b.ttlMs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(messageId, sender, Arrays.hashCode(payload), ttlMs, createdAt);
    }

    @Override
    public String toString() {
        return "Broadcast[" + messageId + " from " + sender + ", "
                + (payload == null ? "no payload" : payload.length + " bytes") + "]";
    }
}
