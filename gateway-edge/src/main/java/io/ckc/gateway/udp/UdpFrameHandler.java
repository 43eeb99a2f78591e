package io.ckc.gateway.udp;

import io.ckc.gateway.core.AddressLimits;
import io.ckc.gateway.core.ConnectAnswer;
import io.ckc.gateway.core.GatewayCore;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.netty.AddressedFrame;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

/**
 * Hands each decoded frame to the shard that owns its node: at once when the frame arrived on that
 * shard's own loop, else as a task on it. A node's frames keep their order on the way (one socket's
 * reads are handed over first in, first out), and the reliable session puts any reordering right.
 * A connect from an address over its share of new sessions ({@link AddressLimits}) stops here, on the loop that
 * read it: counted, answered BUSY at most once a second per address, never handed to a shard. Why here: a flood of
 * connects for ever new node ids from one address, refused on the shards, cost a hand-off to another loop and a
 * reply each, and the honest nodes' echoes fell from 4,000 to 296 in 20 s (perf flood, 2026-11-27).
 */
@ChannelHandler.Sharable
final class UdpFrameHandler extends SimpleChannelInboundHandler<AddressedFrame> {

    private final GatewayCore core;
    private final UdpShard[] shards;
    private final AddressLimits addressLimits;
    private final CounterDataPoint refusedByAddress;
    /** False under DTLS: there the address paid its share for the handshake, the costly part, and a connect is free. */
    private final boolean limitConnects;

    UdpFrameHandler(GatewayCore core, UdpShard[] shards, GatewayMetrics metrics, boolean limitConnects) {
        this.core = core;
        this.shards = shards;
        this.limitConnects = limitConnects;
        this.addressLimits = core.addressLimits();
        this.refusedByAddress = metrics.connectsRefused.labelValues(ConnectAnswer.ADDRESS_RATE.label());
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, AddressedFrame in) {
        if (limitConnects && in.frame() instanceof Frame.Connect connect && !addressLimits.open(in.peer().getAddress())) {
            refusedByAddress.inc();
            if (addressLimits.answerRefusal(in.peer().getAddress())) {
                ctx.writeAndFlush(new AddressedFrame(new Frame.Error(connect.mnId(), connect.epoch(), ErrorCode.BUSY, 0,
                        UdpShard.ADDRESS_RATE_MESSAGE), in.peer()), ctx.voidPromise());
            }
            return;
        }
        UdpShard target = shards[core.shardOf(in.frame().mnId()).index()];
        if (target.core.inLoop()) {
            target.onFrame(in);
        } else {
            target.core.execute(() -> target.onFrame(in));
        }
    }
}
