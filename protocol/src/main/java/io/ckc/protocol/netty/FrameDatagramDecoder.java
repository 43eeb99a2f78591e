package io.ckc.protocol.netty;

import io.ckc.protocol.frame.FrameCodec;
import io.ckc.protocol.frame.MalformedFrameException;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;

import java.net.InetSocketAddress;

/**
 * Turns datagrams into {@link AddressedFrame}s. A malformed datagram is dropped and reported to the
 * listener; it never reaches the session logic and never disturbs other sessions.
 */
@ChannelHandler.Sharable
public final class FrameDatagramDecoder extends SimpleChannelInboundHandler<DatagramPacket> {

    /** Told about every dropped datagram, for counters and logs. */
    @FunctionalInterface
    public interface MalformedListener {
        void malformed(InetSocketAddress sender, MalformedFrameException error);
    }

    private final MalformedListener listener;

    public FrameDatagramDecoder(MalformedListener listener) {
        this.listener = listener;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
        try {
            ctx.fireChannelRead(new AddressedFrame(FrameCodec.decode(packet.content()), packet.sender()));
        } catch (MalformedFrameException e) {
            listener.malformed(packet.sender(), e);
        }
    }

    /** Datagrams read in one go before the event loop turns to its tasks. */
    public static final int MESSAGES_PER_READ = 256;

    /**
     * The receive allocator for a frame channel: buffers of the largest datagram expected, and many
     * datagrams per read, so a busy event loop drains its socket before the kernel buffer overflows
     * (Netty reads 16 per turn by default). Why {@code respectMaybeMoreData(false)}: by default a read
     * loop stops as soon as a datagram is smaller than the buffer offered for it ("no more data"),
     * which for datagrams is always: one datagram per wakeup, and under load the socket's receive
     * buffer filled and dropped while the loop stood nearly idle.
     */
    public static io.netty.channel.RecvByteBufAllocator receiveAllocator(int maxDatagramBytes) {
        return new io.netty.channel.FixedRecvByteBufAllocator(maxDatagramBytes).respectMaybeMoreData(false)
                .maxMessagesPerRead(MESSAGES_PER_READ);
    }
}
