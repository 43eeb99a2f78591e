package io.ckc.protocol.netty;

import io.ckc.protocol.frame.FrameCodec;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;

/** Encodes outgoing {@link AddressedFrame}s into datagrams. */
@ChannelHandler.Sharable
public final class FrameDatagramEncoder extends ChannelOutboundHandlerAdapter {

    public static final FrameDatagramEncoder INSTANCE = new FrameDatagramEncoder();

    private FrameDatagramEncoder() {
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof AddressedFrame addressed) {
            ctx.write(new DatagramPacket(FrameCodec.encode(addressed.frame(), ctx.alloc()), addressed.peer()), promise);
        } else {
            ctx.write(msg, promise);
        }
    }
}
