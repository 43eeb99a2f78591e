package io.ckc.gateway.mqtt;

import io.ckc.gateway.core.SecurityOptions;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import javax.net.ssl.KeyManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

import io.ckc.gateway.core.GatewayCore;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.gateway.core.ProtocolAdapter;
import io.ckc.protocol.netty.DatagramTransport;
import io.ckc.protocol.records.Endpoint;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.timeout.ReadTimeoutHandler;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The MQTT 3.1.1 and 5 protocol adapter, over TCP and over WebSocket (path {@code /mqtt}, subprotocol {@code mqtt},
 * binary frames carrying the MQTT byte stream): a device's connection is a {@link MqttConnection}, its session a
 * {@link MqttLink} on the core's shard of its node id, whichever way it came. Connections are accepted and read on the
 * loops the gateway's sessions run on; what a connection reads goes to its session's shard in order.
 */
public final class MqttAdapter implements ProtocolAdapter {

    /** A connection that sends no CONNECT this soon after it opened is closed. */
    static final int CONNECT_TIMEOUT_SECONDS = 10;

    private final Channel listener;
    private final Channel webSocketListener;
    /** Drops the kept MQTT sessions that expired, once a minute. */
    private final ScheduledFuture<?> sessionSweep;
    private final Endpoint endpoint;

    private MqttAdapter(Channel listener, Channel webSocketListener, ScheduledFuture<?> sessionSweep,
                        String publicHost) {
        this.listener = listener;
        this.webSocketListener = webSocketListener;
        this.sessionSweep = sessionSweep;
        this.endpoint = new Endpoint(Endpoint.MQTT, publicHost, localAddress().getPort());
    }

    /** Binds the listeners on {@code loops} (the core's) and starts accepting. */
    public static MqttAdapter start(MqttOptions options, GatewayCore core, GatewayMetrics metrics,
                                    EventLoopGroup loops) throws InterruptedException {
        DeviceSessions sessions = new DeviceSessions();
        SslContext tls = tls(core.options().security());
        ScheduledFuture<?> sweep = loops.next().scheduleAtFixedRate(() -> sessions.sweep(System.currentTimeMillis()),
                1, 1, TimeUnit.MINUTES);
        Channel tcp = server(loops).childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel channel) {
                if (tls != null) {
                    channel.pipeline().addLast("tls", tls.newHandler(channel.alloc()));
                }
                mqtt(channel.pipeline(), options, core, metrics, sessions);
            }
        }).bind(options.host(), options.port()).sync().channel();
        Channel webSocket = null;
        if (options.webSocketPort() >= 0) {
            WebSocketServerProtocolConfig handshake = WebSocketServerProtocolConfig.newBuilder()
                    .websocketPath(MqttOptions.WEBSOCKET_PATH).subprotocols("mqtt")
                    .maxFramePayloadLength(options.maxPacketBytes()).build();
            webSocket = server(loops).childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel channel) {
                    if (tls != null) {
                        channel.pipeline().addLast("tls", tls.newHandler(channel.alloc()));
                    }
                    channel.pipeline()
                            .addLast("http", new HttpServerCodec())
                            .addLast("http-aggregator", new HttpObjectAggregator(8 * 1024))
                            .addLast("websocket", new WebSocketServerProtocolHandler(handshake))
                            .addLast("frames-to-bytes", new FramesToBytes())
                            .addLast("bytes-to-frames", BytesToFrames.INSTANCE);
                    mqtt(channel.pipeline(), options, core, metrics, sessions);
                }
            }).bind(options.host(), options.webSocketPort()).sync().channel();
        }
        return new MqttAdapter(tcp, webSocket, sweep, options.publicHost());
    }

    /**
     * TLS for both listeners where devices authenticate (they send their password in CONNECT), from the gateway's
     * PKCS#12 keystore; none in the insecure mode. With authorities for client certificates, a device may present
     * one signed by them instead of a password (asked for, not required).
     */
    static SslContext tls(SecurityOptions security) {
        if (security.insecure()) {
            return null;
        }
        char[] password = security.tlsPassword() == null ? new char[0] : security.tlsPassword().toCharArray();
        try (InputStream in = Files.newInputStream(Path.of(security.tlsKeystore()))) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(in, password);
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(keys, password);
            SslContextBuilder tls = SslContextBuilder.forServer(factory).protocols("TLSv1.3", "TLSv1.2");
            if (security.tlsClientCa() != null) {
                tls.trustManager(new java.io.File(security.tlsClientCa())).clientAuth(ClientAuth.OPTIONAL);
            }
            return tls.build();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the TLS keystore " + security.tlsKeystore()
                    + " (CKC_TLS_KEYSTORE, CKC_TLS_KEYSTORE_PASSWORD) or the client authorities "
                    + security.tlsClientCa() + " (CKC_TLS_CLIENT_CA): " + e.getMessage(), e);
        }
    }

    private static ServerBootstrap server(EventLoopGroup loops) {
        return new ServerBootstrap()
                .group(loops)
                .channel(DatagramTransport.current().serverChannelClass())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true);
    }

    /** The MQTT part of a connection's pipeline, the same over TCP and WebSocket (and in the fuzz target). */
    static void mqtt(ChannelPipeline pipeline, MqttOptions options, GatewayCore core, GatewayMetrics metrics,
                             DeviceSessions sessions) {
        pipeline.addLast("connect-timeout", new ReadTimeoutHandler(CONNECT_TIMEOUT_SECONDS, TimeUnit.SECONDS))
                .addLast("decoder", new MqttDecoder(options.maxPacketBytes()))
                .addLast("encoder", MqttEncoder.INSTANCE)
                .addLast("connection", new MqttConnection(core, metrics, sessions));
    }

    /** The MQTT bytes a WebSocket client sends, out of its binary frames (MQTT 5 section 6: any split is allowed). */
    private static final class FramesToBytes extends MessageToMessageDecoder<WebSocketFrame> {
        @Override
        protected void decode(ChannelHandlerContext ctx, WebSocketFrame frame, List<Object> out) {
            if (frame instanceof BinaryWebSocketFrame || frame instanceof ContinuationWebSocketFrame) {
                out.add(frame.content().retain());
            } else {
                // MQTT 5 section 6: a text frame closes the connection
                ctx.close();
            }
        }
    }

    /** What the gateway writes to a WebSocket client, one binary frame per MQTT packet. */
    @ChannelHandler.Sharable
    private static final class BytesToFrames extends MessageToMessageEncoder<ByteBuf> {
        static final BytesToFrames INSTANCE = new BytesToFrames();

        @Override
        protected void encode(ChannelHandlerContext ctx, ByteBuf bytes, List<Object> out) {
            out.add(new BinaryWebSocketFrame(bytes.retain()));
        }
    }

    @Override
    public Endpoint endpoint() {
        return endpoint;
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) listener.localAddress();
    }

    /** The WebSocket listener's address, when it has one. */
    public Optional<InetSocketAddress> webSocketAddress() {
        return Optional.ofNullable(webSocketListener).map(c -> (InetSocketAddress) c.localAddress());
    }

    @Override
    public void close() throws InterruptedException {
        sessionSweep.cancel(false);
        listener.close().sync();
        if (webSocketListener != null) {
            webSocketListener.close().sync();
        }
    }
}
