package io.ckc.protocol.frame;

import io.ckc.protocol.records.Context;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/** What a {@link Frame.Data} frame carries. */
public sealed interface Body {

    /** Size of the application payload, the part limited by the gateway's maximum payload size. */
    int payloadSize();

    /** What a mobile node sends: to a core application channel, or to a group of mobile nodes. */
    sealed interface Outgoing extends Body {
        UUID messageId();

        Context context();

        byte[] payload();
    }

    /** A message from a mobile node to a core application channel ({@code app.<channel>}), with optional context. */
    record MnMessage(UUID messageId, String channel, Context context, byte[] payload) implements Outgoing {
        public MnMessage {
            Objects.requireNonNull(messageId, "messageId");
            Objects.requireNonNull(channel, "channel");
            Objects.requireNonNull(payload, "payload");
        }

        public int payloadSize() { return payload.length; }

        @Override
        public boolean equals(Object o) {
            return o instanceof MnMessage m && messageId.equals(m.messageId) && channel.equals(m.channel)
                    && Objects.equals(context, m.context) && Arrays.equals(payload, m.payload);
        }

        @Override
        public int hashCode() {
            return Objects.hash(messageId, channel, context, Arrays.hashCode(payload));
        }

        @Override
        public String toString() {
            return "MnMessage[" + messageId + " -> " + channel + ", " + payload.length + " bytes, context=" + context + "]";
        }
    }

    /**
     * A groupcast from a mobile node (paper section 7): the gateway puts it on {@code ckc.groupcast}
     * and the core delivers it to every current member of {@code group} ({@code <definerId>/<name>}).
     */
    record MnGroupcast(UUID messageId, String group, Context context, byte[] payload) implements Outgoing {
        public MnGroupcast {
            Objects.requireNonNull(messageId, "messageId");
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(payload, "payload");
        }

        public int payloadSize() { return payload.length; }

        @Override
        public boolean equals(Object o) {
            return o instanceof MnGroupcast m && messageId.equals(m.messageId) && group.equals(m.group)
                    && Objects.equals(context, m.context) && Arrays.equals(payload, m.payload);
        }

        @Override
        public int hashCode() {
            return Objects.hash(messageId, group, context, Arrays.hashCode(payload));
        }

        @Override
        public String toString() {
            return "MnGroupcast[" + messageId + " -> group " + group + ", " + payload.length + " bytes]";
        }
    }

    /**
     * A message from the core delivered to a mobile node, with its deadline where it has one: {@code expiresAtMs}
     * in the clock of whoever holds the body ({@link #NO_DEADLINE} when none). On the wire it travels as the time
     * left when the frame leaves, so the receiver's deadline is its own clock's: a node hands up no content whose
     * deadline passed while it waited in the node's receive buffer behind a lost frame. The deadline is not part
     * of the message's identity ({@code equals}).
     */
    record Delivery(UUID messageId, String sender, byte[] payload, long expiresAtMs) implements Body {
        public static final long NO_DEADLINE = Long.MAX_VALUE;

        public Delivery {
            Objects.requireNonNull(messageId, "messageId");
            Objects.requireNonNull(sender, "sender");
            Objects.requireNonNull(payload, "payload");
        }

        public Delivery(UUID messageId, String sender, byte[] payload) {
            this(messageId, sender, payload, NO_DEADLINE);
        }

        public int payloadSize() { return payload.length; }

        /** Whether its deadline has passed at {@code nowMs} (wall clock, ms). */
        public boolean expiredAt(long nowMs) {
            return expiresAtMs != NO_DEADLINE && nowMs >= expiresAtMs;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Delivery d && messageId.equals(d.messageId) && sender.equals(d.sender)
                    && Arrays.equals(payload, d.payload);
        }

        @Override
        public int hashCode() {
            return Objects.hash(messageId, sender, Arrays.hashCode(payload));
        }

        @Override
        public String toString() {
            return "Delivery[" + messageId + " from " + sender + ", " + payload.length + " bytes"
                    + (expiresAtMs == NO_DEADLINE ? "" : ", until " + expiresAtMs) + "]";
        }
    }

    /**
     * A delivery whose deadline passed before the node acknowledged it, sent in its place (same sequence
     * number) so that no message reaches a node after its TTL: a node that already has the delivery sees a
     * repeat and acknowledges it; one that does not answers with {@link ErrorCode#EXPIRED}. Either way the
     * gateway learns, unambiguously, whether the message arrived.
     */
    record Expired(UUID messageId) implements Body {
        public Expired {
            Objects.requireNonNull(messageId, "messageId");
        }

        public int payloadSize() { return 0; }
    }

    /**
     * A handover command from the core: the node should move its session to the named gateway.
     * The node finishes what it has in flight, leaves its session and connects there.
     */
    record Handover(GatewayAddress target) implements Body {
        public Handover {
            Objects.requireNonNull(target, "target");
        }

        public int payloadSize() { return 0; }
    }

    /** The active gateways, best-ranked first: where a node connects, or reconnects after a loss. */
    record GatewayList(List<GatewayAddress> gateways) implements Body {
        public GatewayList {
            gateways = List.copyOf(gateways);
        }

        public int payloadSize() { return 0; }
    }
}
