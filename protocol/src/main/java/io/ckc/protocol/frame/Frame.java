package io.ckc.protocol.frame;

import java.util.UUID;

/**
 * One datagram of the MN-gateway protocol. Every frame names its session by the mobile node id and
 * the session epoch, never by the source address, so a node survives an address change.
 */
public sealed interface Frame {

    UUID mnId();

    long epoch();

    FrameType type();

    /** Opens (or re-opens, with a higher epoch) the session of a mobile node. */
    record Connect(UUID mnId, long epoch) implements Frame {
        public FrameType type() { return FrameType.CONNECT; }
    }

    /** The gateway accepted the session; names the gateway and the largest payload it accepts. */
    record ConnectAck(UUID mnId, long epoch, String gatewayId, int maxPayloadBytes) implements Frame {
        public FrameType type() { return FrameType.CONNECT_ACK; }
    }

    /** A reliable, sequenced message in either direction; acknowledged by an {@link Ack} of the same sequence. */
    record Data(UUID mnId, long epoch, int seq, Body body) implements Frame {
        public FrameType type() { return FrameType.DATA; }
    }

    /** Acknowledges the data frame with this sequence number. */
    record Ack(UUID mnId, long epoch, int seq) implements Frame {
        public FrameType type() { return FrameType.ACK; }
    }

    /** Keepalive or latency probe; answered by a {@link Pong} carrying the same timestamp. */
    record Ping(UUID mnId, long epoch, long timestamp) implements Frame {
        public FrameType type() { return FrameType.PING; }
    }

    /** The answer to a {@link Ping}. */
    record Pong(UUID mnId, long epoch, long timestamp) implements Frame {
        public FrameType type() { return FrameType.PONG; }
    }

    /** Closes the session on purpose. */
    record Disconnect(UUID mnId, long epoch) implements Frame {
        public FrameType type() { return FrameType.DISCONNECT; }
    }

    /** Tells the peer why a frame was refused; {@code seq} is the refused data frame, or 0. */
    record Error(UUID mnId, long epoch, ErrorCode code, int seq, String message) implements Frame {
        public FrameType type() { return FrameType.ERROR; }
    }
}
