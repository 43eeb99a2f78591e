package io.ckc.protocol.records;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

/**
 * A message from a mobile node to a core application, on topic {@code app.<channel>}, keyed by MN id.
 * The payload is raw bytes (base64 in JSON).
 *
 * @param ttlMs       how long after {@code receivedAt} the node wants it handled (MQTT 5 Message Expiry Interval);
 *                    null for no limit
 * @param replyTo     the node's own topic for answers (MQTT 5 Response Topic), or null for its inbox
 * @param correlation what the node asked to get back with an answer (MQTT 5 Correlation Data), or null
 */
public record AppMessage(String messageId, String mnId, String gatewayId, String channel, byte[] payload,
                         Context context, long receivedAt, Long ttlMs, String replyTo, byte[] correlation) {

    /** A message without a TTL, a reply topic or correlation data, as a reliable-UDP node sends it. */
    public AppMessage(String messageId, String mnId, String gatewayId, String channel, byte[] payload,
                      Context context, long receivedAt) {
        this(messageId, mnId, gatewayId, channel, payload, context, receivedAt, null, null, null);
    }

    /**
     * The answer to this message, for its node: on the reply topic it named, with its correlation data, and with a
     * message id derived from this one's and the sender's, so an answer sent twice is dropped by the node as a repeat.
     */
    public Unicast answer(String sender, byte[] answerPayload) {
        String answerId = UUID.nameUUIDFromBytes((sender + ":" + messageId).getBytes(StandardCharsets.UTF_8))
                .toString();
        return new Unicast(answerId, sender, mnId, answerPayload, null, System.currentTimeMillis(), false, null,
                replyTo, correlation);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AppMessage m && receivedAt == m.receivedAt && Objects.equals(messageId, m.messageId)
                && Objects.equals(mnId, m.mnId) && Objects.equals(gatewayId, m.gatewayId)
                && Objects.equals(channel, m.channel) && Arrays.equals(payload, m.payload)
                && Objects.equals(context, m.context) && Objects.equals(ttlMs, m.ttlMs)
                && Objects.equals(replyTo, m.replyTo) && Arrays.equals(correlation, m.correlation);
    }

    @Override
    public int hashCode() {
        return Objects.hash(messageId, mnId, gatewayId, channel, Arrays.hashCode(payload), context, receivedAt, ttlMs,
                replyTo, Arrays.hashCode(correlation));
    }

    @Override
    public String toString() {
        return "AppMessage[" + messageId + " from " + mnId + " on " + channel + ", "
                + (payload == null ? "no payload" : payload.length + " bytes") + "]";
    }
}
