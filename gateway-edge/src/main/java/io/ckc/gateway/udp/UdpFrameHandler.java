package io.ckc.gateway.udp;

import io.ckc.gateway.core.GatewayCore;
import io.ckc.protocol.netty.AddressedFrame;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

/**
 * Hands each decoded frame to the shard that owns its node: at once when the frame arrived on that
 * shard's own loop, else as a task on it. A node's frames keep their order on the way (one socket's
 * reads are handed over first in, first out), and the reliable session puts any reordering right.
 */
@ChannelHandler.Sharable
final class UdpFrameHandler extends SimpleChannelInboundHandler<AddressedFrame> {

    private final GatewayCore core;
    private final UdpShard[] shards;

    UdpFrameHandler(GatewayCore core, UdpShard[] shards) {
        this.core = core;
        this.shards = shards;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, AddressedFrame in) {
        UdpShard target = shards[core.shardOf(in.frame().mnId()).index()];
        if (target.core.inLoop()) {
            target.onFrame(in);
        } else {
            target.core.execute(() -> target.onFrame(in));
        }
    }
}
