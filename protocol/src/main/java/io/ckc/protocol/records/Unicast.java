package io.ckc.protocol.records;

/**
 * A message from the core to one mobile node, on {@code ckc.to-mn} keyed by recipient.
 *
 * @param ttlMs how long the message stays deliverable after {@code createdAt}; null for the default
 * @param receipt whether the sender wants a delivery receipt
 */
public record Unicast(String messageId, String sender, String recipient, byte[] payload, Long ttlMs, long createdAt,
                      boolean receipt) {

    @Override
    public boolean equals(Object o) {
        return o instanceof Unicast u && createdAt == u.createdAt && receipt == u.receipt
                && java.util.Objects.equals(messageId, u.messageId) && java.util.Objects.equals(sender, u.sender)
                && java.util.Objects.equals(recipient, u.recipient) && java.util.Arrays.equals(payload, u.payload)
                && java.util.Objects.equals(ttlMs, u.ttlMs);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(messageId, sender, recipient, java.util.Arrays.hashCode(payload), ttlMs, createdAt,
                receipt);
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
