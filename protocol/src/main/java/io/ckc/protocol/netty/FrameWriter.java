package io.ckc.protocol.netty;

import io.ckc.protocol.frame.Frame;
import io.netty.channel.Channel;

import java.net.InetSocketAddress;

/**
 * Sends frames on a datagram channel: written at once and flushed once per turn of the channel's
 * event loop, after what it read in that turn, so a burst of replies leaves in one flush instead of
 * one flush (and one trip through the pipeline's flush path) per datagram. From another thread a
 * frame is written and flushed by the channel's loop.
 */
public final class FrameWriter {

    private final Channel channel;
    private final Runnable flush = this::flush;
    private boolean flushPending;

    public FrameWriter(Channel channel) {
        this.channel = channel;
    }

    public void send(Frame frame, InetSocketAddress peer) {
        AddressedFrame addressed = new AddressedFrame(frame, peer);
        if (channel.eventLoop().inEventLoop()) {
            channel.write(addressed, channel.voidPromise());
            if (!flushPending) {
                flushPending = true;
                channel.eventLoop().execute(flush);
            }
        } else {
            channel.writeAndFlush(addressed, channel.voidPromise());
        }
    }

    private void flush() {
        flushPending = false;
        channel.flush();
    }
}
