package io.ckc.protocol.records;

/**
 * What became of a unicast whose sender asked for a receipt, on {@code ckc.receipts} keyed by the
 * sender. DELIVERED is written by the gateway once the mobile node acknowledged the message, for
 * every unicast, on {@code ckc.delivered} keyed by the node; the delivery job, which held the
 * message until then, passes it on to {@code ckc.receipts} if the sender asked. EXPIRED
 * (its TTL passed before it could be delivered) and DROPPED (the node's buffer was full, or the MTD
 * is off and the node was not connected) come from the delivery job. A receipt may be repeated
 * (at-least-once): read them by message id.
 *
 * @param gatewayId the gateway that delivered it, or null
 * @param detail why it was dropped or expired, for people
 */
public record Receipt(String messageId, String sender, String recipient, Outcome outcome, String gatewayId,
                      String detail, long timestamp) {

    public enum Outcome { DELIVERED, EXPIRED, DROPPED }

    public static Receipt of(Unicast unicast, Outcome outcome, String gatewayId, String detail, long timestamp) {
        return new Receipt(unicast.messageId(), unicast.sender(), unicast.recipient(), outcome, gatewayId, detail,
                timestamp);
    }
}
