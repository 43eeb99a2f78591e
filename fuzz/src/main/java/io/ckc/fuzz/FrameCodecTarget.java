package io.ckc.fuzz;

import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.FrameCodec;
import io.ckc.protocol.frame.MalformedFrameException;
import io.netty.buffer.Unpooled;

import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The frame codec on any datagram: it decodes or says why not ({@link MalformedFrameException}), nothing else;
 * and what it decodes encodes to bytes that decode to the same frame. (A delivery's deadline travels as the time
 * left, so it may come back a few milliseconds off; more than a second is a finding.)
 */
public final class FrameCodecTarget {

    private FrameCodecTarget() {
    }

    /** Jazzer calls it once before fuzzing: the classes load and initialise here, not in the first input's time. */
    public static void fuzzerInitialize() {
        seeds().forEach(FrameCodecTarget::fuzzerTestOneInput);
    }

    public static void fuzzerTestOneInput(byte[] datagram) {
        Frame frame;
        try {
            frame = FrameCodec.decode(Unpooled.wrappedBuffer(datagram));
        } catch (MalformedFrameException e) {
            return;
        }
        Frame again;
        try {
            again = FrameCodec.decode(Unpooled.wrappedBuffer(SampleFrames.encode(frame)));
        } catch (MalformedFrameException e) {
            throw new FuzzFinding("a decoded frame does not decode once encoded again: " + frame, e);
        }
        if (!frame.equals(again) || deadlineMovedMs(frame, again) > 1_000) {
            throw new FuzzFinding("a frame changes on its way through the codec: " + frame + " became " + again);
        }
    }

    private static long deadlineMovedMs(Frame frame, Frame again) {
        if (frame instanceof Frame.Data data && data.body() instanceof Body.Delivery delivery
                && again instanceof Frame.Data back && back.body() instanceof Body.Delivery returned) {
            return Math.abs(delivery.expiresAtMs() - returned.expiresAtMs());
        }
        return 0;
    }

    public static List<byte[]> seeds() {
        UUID node = new UUID(0x1234, 0x5678);
        return Stream.concat(SampleFrames.fromNode(node, 1).stream(), SampleFrames.fromGateway(node, 1).stream())
                .map(SampleFrames::encode)
                .toList();
    }
}
