package io.ckc.gateway.core;

import io.ckc.protocol.records.Context;

import java.util.UUID;

/** A message a node sends, as the core takes it from any adapter. */
public sealed interface Uplink {

    UUID messageId();

    byte[] payload();

    /** The node's context when it sent the message, or null. */
    Context context();

    /**
     * How long the node wants it handled, in milliseconds from when the gateway had it, or null: no limit for a
     * message to a channel, the delivery job's default for a groupcast.
     */
    Long ttlMs();

    /**
     * To the applications reading channel {@code channel} (Kafka topic {@code app.<channel>}).
     *
     * @param ttlMs       how long the node wants it handled, or null for no limit
     * @param replyTo     the node's topic for answers, or null
     * @param correlation what the node wants back with an answer, or null
     */
    record ToChannel(UUID messageId, String channel, Context context, byte[] payload, Long ttlMs, String replyTo,
                     byte[] correlation) implements Uplink {

        /** A message with none of a TTL, a reply topic or correlation data. */
        public ToChannel(UUID messageId, String channel, Context context, byte[] payload) {
            this(messageId, channel, context, payload, null, null, null);
        }
    }

    /**
     * To every current member of {@code group} ({@code <definerId>/<name>}).
     *
     * @param ttlMs how long it stays deliverable; null for the delivery job's default
     */
    record ToGroup(UUID messageId, String group, Context context, byte[] payload, Long ttlMs) implements Uplink {
    }
}
