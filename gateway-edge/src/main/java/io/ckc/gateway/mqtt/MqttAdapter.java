package io.ckc.gateway.mqtt;

import io.ckc.gateway.core.GatewayCore;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.gateway.core.ProtocolAdapter;
import io.ckc.protocol.netty.DatagramTransport;
import io.ckc.protocol.records.Endpoint;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.timeout.ReadTimeoutHandler;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The MQTT 3.1.1 and 5 protocol adapter (over TCP): a device's connection is a {@link MqttConnection}, its session a
 * {@link MqttLink} on the core's shard of its node id. Connections are accepted and read on the loops the gateway's
 * sessions run on; what a connection reads goes to its session's shard in order.
 */
public final class MqttAdapter implements ProtocolAdapter {

    /** A connection that sends no CONNECT this soon after it opened is closed. */
    static final int CONNECT_TIMEOUT_SECONDS = 10;

    private final Channel listener;
    private final Endpoint endpoint;

    private MqttAdapter(Channel listener, String publicHost) {
        this.listener = listener;
        this.endpoint = new Endpoint(Endpoint.MQTT, publicHost, localAddress().getPort());
    }

    /** Binds the listener on {@code loops} (the core's) and starts accepting. */
    public static MqttAdapter start(MqttOptions options, GatewayCore core, GatewayMetrics metrics,
                                    EventLoopGroup loops) throws InterruptedException {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loops)
                .channel(DatagramTransport.current().serverChannelClass())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline()
                                .addLast("connect-timeout", new ReadTimeoutHandler(CONNECT_TIMEOUT_SECONDS, TimeUnit.SECONDS))
                                .addLast("decoder", new MqttDecoder(options.maxPacketBytes()))
                                .addLast("encoder", MqttEncoder.INSTANCE)
                                .addLast("connection", new MqttConnection(core, metrics));
                    }
                });
        Channel listener = bootstrap.bind(options.host(), options.port()).sync().channel();
        return new MqttAdapter(listener, options.publicHost());
    }

    @Override
    public Endpoint endpoint() {
        return endpoint;
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) listener.localAddress();
    }

    @Override
    public void close() throws InterruptedException {
        listener.close().sync();
    }
}
