package io.ckc.protocol.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class DatagramTransportTest {

    @Test
    void autoIsEpollWhereItLoadsAndNioElsewhere() {
        assertThat(DatagramTransport.choose(Map.of()))
                .isEqualTo(Epoll.isAvailable() ? DatagramTransport.EPOLL : DatagramTransport.NIO);
        assertThat(DatagramTransport.choose(Map.of(DatagramTransport.ENV, "auto")))
                .isEqualTo(DatagramTransport.choose(Map.of()));
    }

    @Test
    void nioCanBeChosenByHand() {
        assertThat(DatagramTransport.choose(Map.of(DatagramTransport.ENV, " NIO "))).isEqualTo(DatagramTransport.NIO);
    }

    @Test
    void anUnknownTransportIsAClearError() {
        assertThatThrownBy(() -> DatagramTransport.choose(Map.of(DatagramTransport.ENV, "kqueue")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CKC_UDP_TRANSPORT must be auto, epoll or nio, got 'kqueue'");
    }

    /** A burst written in one turn and flushed once reaches its peer whole, on either transport (epoll: one sendmmsg). */
    @ParameterizedTest
    @EnumSource(DatagramTransport.class)
    void aFlushedBurstArrivesWhole(DatagramTransport transport) throws Exception {
        assumeTrue(transport != DatagramTransport.EPOLL || Epoll.isAvailable(), "epoll not available here");
        EventLoopGroup group = transport.newGroup(1);
        List<String> received = new CopyOnWriteArrayList<>();
        CountDownLatch allIn = new CountDownLatch(100);
        try {
            Channel receiver = bind(group, transport, received, allIn);
            Channel sender = bind(group, transport, new CopyOnWriteArrayList<>(), new CountDownLatch(0));
            InetSocketAddress to = (InetSocketAddress) receiver.localAddress();
            sender.eventLoop().submit(() -> {
                for (int i = 0; i < 100; i++) {
                    sender.write(new DatagramPacket(
                            sender.alloc().buffer().writeBytes(("m" + i).getBytes(StandardCharsets.UTF_8)),
                            new InetSocketAddress("127.0.0.1", to.getPort())));
                }
                sender.flush();
            }).sync();
            assertThat(allIn.await(30, TimeUnit.SECONDS)).as("100 datagrams received, got %s", received.size()).isTrue();
            assertThat(received).startsWith("m0", "m1").endsWith("m99");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static Channel bind(EventLoopGroup group, DatagramTransport transport, List<String> received,
                                CountDownLatch counted)
            throws InterruptedException {
        return new Bootstrap().group(group).channel(transport.channelClass())
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<DatagramPacket>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
                                received.add(packet.content().toString(StandardCharsets.UTF_8));
                                counted.countDown();
                            }
                        });
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }
}
