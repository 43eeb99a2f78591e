package io.ckc.protocol.dtls;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DatagramPacket;

import java.net.InetSocketAddress;

/**
 * Writes the datagrams a DTLS layer makes (sealed records, handshake messages) on its socket: on the socket's loop at
 * once, flushed once after what the loop read or sealed in that turn; from another thread (a handshake's) written and
 * flushed by the loop. One per socket handler, used on its loop but for {@link #write} from a handshake thread.
 */
public final class DatagramWriter {

    private final ChannelHandlerContext ctx;
    private boolean flushPending;

    public DatagramWriter(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    public void write(byte[] datagram, InetSocketAddress to) {
        DatagramPacket packet = new DatagramPacket(Unpooled.wrappedBuffer(datagram), to);
        if (ctx.executor().inEventLoop()) {
            ctx.write(packet, ctx.voidPromise());
            flushPending = true;
        } else {
            ctx.writeAndFlush(packet, ctx.voidPromise());
        }
    }

    /** The channel was flushed by someone else: nothing of ours waits. */
    public void flushed() {
        flushPending = false;
    }

    /** Flushes what was written on the loop since the last flush, if anything. */
    public void flushIfWritten() {
        if (flushPending) {
            flushPending = false;
            ctx.flush();
        }
    }
}
