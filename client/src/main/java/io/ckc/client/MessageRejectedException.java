package io.ckc.client;

import io.ckc.protocol.frame.ErrorCode;

/** The gateway refused a message: unknown or forbidden channel, oversize payload, or the core was unavailable. */
public class MessageRejectedException extends RuntimeException {

    private final ErrorCode code;

    public MessageRejectedException(ErrorCode code, String message) {
        super(code + ": " + message);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
