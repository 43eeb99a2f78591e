package io.ckc.protocol.records;


/**
 * A message from a mobile node to a core application, on topic {@code app.<channel>}, keyed by MN id.
 * The payload is raw bytes (base64 in JSON).
 */
public record AppMessage(String messageId, String mnId, String gatewayId, String channel, byte[] payload,
                         Context context, long receivedAt) {
}
