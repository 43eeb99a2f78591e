package io.ckc.perf;

import java.nio.ByteBuffer;

/**
 * The payload a simulated node sends through the echo application: which node, which message and
 * when it was sent, so the echo tells its own round-trip time. Padded to a fixed size.
 */
record EchoPayload(int node, int seq, long sentNanos) {

    static final int SIZE = 32;

    byte[] encode() {
        return ByteBuffer.allocate(SIZE).putInt(node).putInt(seq).putLong(sentNanos).array();
    }

    static EchoPayload decode(byte[] bytes) {
        if (bytes.length < 16) {
            throw new IllegalArgumentException("not an echo payload: " + bytes.length + " bytes");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        return new EchoPayload(buffer.getInt(), buffer.getInt(), buffer.getLong());
    }
}
