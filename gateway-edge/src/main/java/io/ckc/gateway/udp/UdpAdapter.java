package io.ckc.gateway.udp;

import io.ckc.gateway.core.GatewayCore;
import io.ckc.gateway.core.ProtocolAdapter;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.gateway.core.SecurityOptions;
import io.ckc.protocol.frame.FrameCodec;
import io.ckc.protocol.netty.DatagramTransport;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.netty.FrameDatagramDecoder;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The reliable-UDP protocol adapter: frames in, calls on the gateway core; the core's calls, frames
 * out. Where the OS has {@code SO_REUSEPORT} (Linux) it binds one socket per shard to the same port:
 * the kernel spreads the nodes' datagrams over them, each shard sends on its own socket from its own
 * loop, and a frame read on another shard's socket is handed over to the node's shard. Otherwise one
 * socket, on the first shard's loop, serves them all.
 */
public final class UdpAdapter implements ProtocolAdapter {

    private static final int SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;

    private final List<Channel> channels;
    private final UdpShard[] shards;
    private final Endpoint endpoint;
    /** Null in the insecure mode. */
    private final DtlsSessions dtls;

    private UdpAdapter(List<Channel> channels, UdpShard[] shards, String publicHost, DtlsSessions dtls) {
        this.channels = channels;
        this.shards = shards;
        this.dtls = dtls;
        this.endpoint = new Endpoint(Endpoint.UDP, publicHost, localAddress().getPort());
    }

    /**
     * Binds the listener and starts reading.
     *
     * @param linkHook an optional first pipeline handler per socket, for fault-injection tests; null for none
     */
    public static UdpAdapter start(UdpOptions options, GatewayCore core, GatewayMetrics metrics,
                                   Supplier<ChannelHandler> linkHook) throws InterruptedException {
        SecurityOptions security = core.options().security();
        DtlsSessions dtls = core.authenticator().map(authenticator -> new DtlsSessions(authenticator, metrics,
                core.addressLimits(), security.idleMs(), security.handshakesPerAddress(), security.maxHandshakes()))
                .orElse(null);
        UdpShard[] shards = new UdpShard[core.shardCount()];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = new UdpShard(core.shard(i), options.reliability(), metrics,
                    dtls == null ? UdpShard.NodeRights.INSECURE : dtls::rights);
        }
        UdpInitializer initializer = new UdpInitializer(new UdpFrameHandler(core, shards, metrics, dtls == null),
                metrics, dtls, linkHook);
        int maxDatagram = Math.min(FrameCodec.MAX_DATAGRAM_BYTES, core.options().maxPayloadBytes() + 1024);
        DatagramTransport transport = DatagramTransport.current();
        boolean socketPerShard = shards.length > 1 && options.socketPerLoop() && transport.supportsReusePort();
        int sockets = socketPerShard ? shards.length : 1;
        List<Channel> channels = new ArrayList<>(sockets);
        int port = options.port();
        for (int i = 0; i < sockets; i++) {
            Bootstrap bootstrap = new Bootstrap()
                    .group(core.shard(i).loop())
                    .channel(transport.channelClass())
                    .option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER_BYTES)
                    .option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER_BYTES)
                    .option(ChannelOption.RCVBUF_ALLOCATOR, FrameDatagramDecoder.receiveAllocator(maxDatagram))
                    .option(ChannelOption.AUTO_READ, false) // until every shard knows its socket
                    .handler(initializer);
            if (socketPerShard) {
                transport.reusePort(bootstrap);
            }
            Channel channel = bootstrap.bind(options.host(), port).sync().channel();
            port = ((InetSocketAddress) channel.localAddress()).getPort(); // port 0: the others join the one picked
            channels.add(channel);
        }
        for (int i = 0; i < shards.length; i++) {
            shards[i].bind(channels.get(socketPerShard ? i : 0));
        }
        if (dtls != null) { // a node's session lives on the loop of the socket its shard writes on
            dtls.route(node -> (DtlsHandler) channels.get(socketPerShard ? core.shardOf(node).index() : 0)
                    .pipeline().get(UdpInitializer.DTLS));
        }
        channels.forEach(c -> c.config().setAutoRead(true));
        return new UdpAdapter(channels, shards, options.publicHost(), dtls);
    }

    @Override
    public Endpoint endpoint() {
        return endpoint;
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channels.get(0).localAddress();
    }

    /** Sockets bound: one per shard where the OS lets them share the port, else one. */
    public int sockets() {
        return channels.size();
    }

    @Override
    public void close() throws InterruptedException {
        for (UdpShard shard : shards) {
            shard.core.loop().submit(shard::stop).sync();
        }
        for (Channel channel : channels) {
            channel.close().sync();
        }
        if (dtls != null) {
            dtls.close();
        }
    }
}
