package io.ckc.protocol.frame;

/** The kinds of frame exchanged between a mobile node and a gateway, with their one-byte wire codes. */
public enum FrameType {
    CONNECT(1),
    CONNECT_ACK(2),
    DATA(3),
    ACK(4),
    PING(5),
    PONG(6),
    DISCONNECT(7),
    ERROR(8);

    private static final FrameType[] BY_CODE = new FrameType[16];

    static {
        for (FrameType type : values()) {
            BY_CODE[type.code] = type;
        }
    }

    private final int code;

    FrameType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** Returns the type for a wire code, or null when the code is unknown. */
    public static FrameType ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
