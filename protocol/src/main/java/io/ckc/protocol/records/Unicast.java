package io.ckc.protocol.records;

/**
 * A message from the core to one mobile node, on {@code ckc.to-mn} keyed by recipient.
 *
 * @param ttlMs how long the message stays deliverable after {@code createdAt}; null for the default
 * @param receipt whether the sender wants a delivery receipt
 */
public record Unicast(String messageId, String sender, String recipient, byte[] payload, Long ttlMs, long createdAt,
                      boolean receipt) {

    public static Unicast of(String messageId, String sender, String recipient, byte[] payload) {
        return new Unicast(messageId, sender, recipient, payload, null, System.currentTimeMillis(), false);
    }
}
