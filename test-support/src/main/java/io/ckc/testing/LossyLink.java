package io.ckc.testing;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test hook for the first place of a UDP pipeline: drops a share of datagrams both ways and
 * delays another share by a random few milliseconds, so later datagrams overtake them (reordering).
 */
public final class LossyLink extends ChannelDuplexHandler {

    private final Random random;
    private final double dropShare;
    private final double delayShare;
    private final AtomicLong dropped;

    public LossyLink(long seed, double dropShare, double delayShare, AtomicLong dropped) {
        this.random = new Random(seed);
        this.dropShare = dropShare;
        this.delayShare = delayShare;
        this.dropped = dropped;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof DatagramPacket)) {
            ctx.fireChannelRead(msg);
        } else if (random.nextDouble() < dropShare) {
            dropped.incrementAndGet();
            ReferenceCountUtil.release(msg);
        } else if (random.nextDouble() < delayShare) {
            ctx.executor().schedule(() -> ctx.fireChannelRead(msg), 1 + random.nextInt(20), TimeUnit.MILLISECONDS);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof DatagramPacket)) {
            ctx.write(msg, promise);
        } else if (random.nextDouble() < dropShare) {
            dropped.incrementAndGet();
            ReferenceCountUtil.release(msg);
            promise.trySuccess();
        } else if (random.nextDouble() < delayShare) {
            ctx.executor().schedule(() -> ctx.writeAndFlush(msg, promise), 1 + random.nextInt(20),
                    TimeUnit.MILLISECONDS);
        } else {
            ctx.write(msg, promise);
        }
    }
}
