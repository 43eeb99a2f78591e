package io.ckc.protocol.frame;

/** A datagram that is not a valid frame: bad magic, unknown version or type, truncated, or oversize. */
public class MalformedFrameException extends Exception {

    private final Reason reason;

    public enum Reason { BAD_MAGIC, UNSUPPORTED_VERSION, UNKNOWN_TYPE, TRUNCATED, OVERSIZE, BAD_FIELD }

    public MalformedFrameException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
