package io.ckc.protocol.records;

/**
 * A message from the core to one mobile node, on {@code ckc.to-mn} keyed by recipient.
 *
 * @param ttlMs       how long the message stays deliverable after {@code createdAt}; null for the default
 * @param receipt     whether the sender wants a delivery receipt
 * @param group       the group it was sent to ({@code <definerId>/<name>}), {@link #BROADCAST} for a broadcast, or
 *                    null for a message to this node alone: a node may read each on a topic of its own
 * @param replyTo     the node's topic for this answer, as the node named it in its request (MQTT 5 Response Topic),
 *                    or null
 * @param correlation the request's correlation data, given back to the node with the answer, or null
 */
public record Unicast(String messageId, String sender, String recipient, byte[] payload, Long ttlMs, long createdAt,
                      boolean receipt, String group, String replyTo, byte[] correlation) {

    /** The {@link #group} of a broadcast's copy; no group is named so. */
    public static final String BROADCAST = "*";

    /** A message to this node alone. */
    public Unicast(String messageId, String sender, String recipient, byte[] payload, Long ttlMs, long createdAt,
                   boolean receipt) {
        this(messageId, sender, recipient, payload, ttlMs, createdAt, receipt, null, null, null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Unicast u && createdAt == u.createdAt && receipt == u.receipt
                && java.util.Objects.equals(messageId, u.messageId) && java.util.Objects.equals(sender, u.sender)
                && java.util.Objects.equals(recipient, u.recipient) && java.util.Arrays.equals(payload, u.payload)
                && java.util.Objects.equals(ttlMs, u.ttlMs) && java.util.Objects.equals(group, u.group)
                && java.util.Objects.equals(replyTo, u.replyTo) && java.util.Arrays.equals(correlation, u.correlation);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(messageId, sender, recipient, java.util.Arrays.hashCode(payload), ttlMs, createdAt,
                receipt, group, replyTo, java.util.Arrays.hashCode(correlation));
    }

    @Override
    public String toString() {
        return "Unicast[" + messageId + " " + sender + " -> " + recipient + ", "
                + (payload == null ? "no payload" : payload.length + " bytes") + ", ttlMs=" + ttlMs + "]";
    }

    public static Unicast of(String messageId, String sender, String recipient, byte[] payload) {
        return new Unicast(messageId, sender, recipient, payload, null, System.currentTimeMillis(), false);
    }
}
