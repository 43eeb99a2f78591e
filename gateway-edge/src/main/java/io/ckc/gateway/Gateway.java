package io.ckc.gateway;

import io.ckc.protocol.kafka.TopicSetup;
import io.ckc.protocol.netty.FrameDatagramDecoder;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Supplier;

/** A running gateway: UDP listener, Kafka publisher and delivery consumer, metrics endpoint. */
public final class Gateway implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);
    private static final int SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;

    private final GatewayConfig config;
    private final EventLoopGroup group;
    private final Channel channel;
    private final CorePublisher publisher;
    private final CoreConsumer consumer;
    private final HTTPServer metricsServer;

    private Gateway(GatewayConfig config, EventLoopGroup group, Channel channel, CorePublisher publisher,
                    CoreConsumer consumer, HTTPServer metricsServer) {
        this.config = config;
        this.group = group;
        this.channel = channel;
        this.publisher = publisher;
        this.consumer = consumer;
        this.metricsServer = metricsServer;
    }

    public static Gateway start(GatewayConfig config) throws IOException, InterruptedException {
        return start(config, null);
    }

    /**
     * Starts a gateway. Ensures its own delivery topic exists (explicit partitions and retention,
     * never broker auto-creation), binds UDP, then starts consuming deliveries.
     *
     * @param linkHook an optional first pipeline handler, for fault-injection tests; null for none
     */
    public static Gateway start(GatewayConfig config, Supplier<ChannelHandler> linkHook)
            throws IOException, InterruptedException {
        try (Admin admin = TopicSetup.admin(config.kafkaBootstrap())) {
            TopicSetup.create(admin, List.of(new TopicSetup(config.topics(), 1).gatewayTopic(config.gatewayId())));
        }
        PrometheusRegistry registry = config.metricsPort() >= 0 ? PrometheusRegistry.defaultRegistry
                : new PrometheusRegistry();
        GatewayMetrics metrics = new GatewayMetrics(config.gatewayId(), registry);
        HTTPServer metricsServer = null;
        if (config.metricsPort() >= 0) {
            JvmMetrics.builder().register(registry);
            metricsServer = HTTPServer.builder().hostname(config.udpHost()).port(config.metricsPort())
                    .registry(registry).buildAndStart();
        }
        CorePublisher publisher = new KafkaCorePublisher(config, metrics);
        MnSessionHandler sessions = new MnSessionHandler(config, publisher, metrics);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        int maxDatagram = Math.min(io.ckc.protocol.frame.FrameCodec.MAX_DATAGRAM_BYTES, config.maxPayloadBytes() + 1024);
        Channel channel = new Bootstrap()
                .group(group)
                .channel(NioDatagramChannel.class)
                .option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER_BYTES)
                .option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER_BYTES)
                .option(ChannelOption.RCVBUF_ALLOCATOR, FrameDatagramDecoder.receiveAllocator(maxDatagram))
                .handler(new GatewayInitializer(sessions, metrics, linkHook))
                .bind(config.udpHost(), config.udpPort())
                .sync()
                .channel();
        CoreConsumer consumer = new CoreConsumer(config, sessions, publisher, metrics);
        consumer.start();
        Gateway gateway = new Gateway(config, group, channel, publisher, consumer, metricsServer);
        LOG.info("Gateway {} listening on udp://{} (metrics {})", config.gatewayId(), gateway.udpAddress(),
                metricsServer == null ? "off" : "http://" + config.udpHost() + ":" + metricsServer.getPort() + "/metrics");
        return gateway;
    }

    public String id() {
        return config.gatewayId();
    }

    public InetSocketAddress udpAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** The metrics port, or -1 when the endpoint is off. */
    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.getPort();
    }

    @Override
    public void close() throws InterruptedException {
        consumer.close();
        channel.close().sync(); // sessions close: their Disconnected events and unsent deliveries are published
        group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).sync();
        publisher.close();
        if (metricsServer != null) {
            metricsServer.close();
        }
    }
}
