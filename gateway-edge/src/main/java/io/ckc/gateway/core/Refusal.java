package io.ckc.gateway.core;

/** Why the core refuses a node's uplink message; each adapter says it in its own wire format. */
public enum Refusal {
    /** The payload is larger than CKC_MAX_PAYLOAD_BYTES. */
    PAYLOAD_TOO_LARGE,
    /** The channel's name is not one a node may address. */
    FORBIDDEN_CHANNEL,
    /** The channel has no topic. */
    UNKNOWN_CHANNEL,
    /** The message is not one a node may send (a group that is not {@code <definerId>/<name>}, a frame kind). */
    MALFORMED,
    /** Kafka did not take it. */
    PUBLISH_FAILED,
    /** The core is behind (uplink admission): try again later. */
    BUSY,
    /** The node sends more messages or bytes per second than CKC_NODE_MESSAGES_PER_SECOND or CKC_NODE_BYTES_PER_SECOND allow: try again later. */
    RATE_LIMITED,
    /** The node's credential does not grant it this channel or group (its access rules in the credential store). */
    NOT_AUTHORIZED
}
