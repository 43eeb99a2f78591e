package io.ckc.protocol.records;

import java.util.Arrays;
import java.util.Objects;

/**
 * A message for every current member of one group (paper section 7), on {@code ckc.groupcast} keyed
 * by group. The delivery job expands it into one unicast per member with the same message id,
 * TTL and creation time, so ordering, TTL, the MTD and receipts work as for unicasts.
 *
 * @param group  {@code <definerId>/<name>}, as the group definers name groups
 * @param sender an application name, or the mobile node id when a node sent it
 * @param ttlMs  how long it stays deliverable after {@code createdAt}; null for the default
 */
public record Groupcast(String messageId, String sender, String group, byte[] payload, Long ttlMs, long createdAt,
                        boolean receipt) {

    /** The unicast one member gets. */
    public Unicast toMember(String mnId) {
        return new Unicast(messageId, sender, mnId, payload, ttlMs, createdAt, receipt, group, null, null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Groupcast g && createdAt == g.createdAt && receipt == g.receipt
                && Objects.equals(messageId, g.messageId) && Objects.equals(sender, g.sender)
                && Objects.equals(group, g.group) && Arrays.equals(payload, g.payload) && Objects.equals(ttlMs, g.ttlMs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(messageId, sender, group, Arrays.hashCode(payload), ttlMs, createdAt, receipt);
    }

    @Override
    public String toString() {
        return "Groupcast[" + messageId + " " + sender + " -> group " + group + ", "
                + (payload == null ? "no payload" : payload.length + " bytes") + ", ttlMs=" + ttlMs + "]";
    }
}
