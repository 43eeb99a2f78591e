package io.ckc.protocol.frame;

/** Why a gateway or node refused a frame. */
public enum ErrorCode {
    UNKNOWN_SESSION(1),
    STALE_EPOCH(2),
    PAYLOAD_TOO_LARGE(3),
    FORBIDDEN_CHANNEL(4),
    PUBLISH_FAILED(5),
    MALFORMED(6),
    UNKNOWN_CHANNEL(7),
    /** The gateway admits no new session now; the node tries again after its backoff. */
    BUSY(8),
    /** A node's answer to {@link Body.Expired}: it never had that delivery, and now it never will. */
    EXPIRED(9),
    /** The node's credential does not grant it that channel or group. */
    NOT_AUTHORIZED(10);

    private final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static ErrorCode ofCode(int code) {
        for (ErrorCode value : values()) {
            if (value.code == code) {
                return value;
            }
        }
        return null;
    }
}
