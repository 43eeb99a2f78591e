package io.ckc.gateway;

import io.ckc.gateway.core.CoreConsumer;
import io.ckc.gateway.core.CorePublisher;
import io.ckc.gateway.core.GatewayCore;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.gateway.core.KafkaCorePublisher;
import io.ckc.gateway.core.ProtocolAdapter;
import io.ckc.gateway.mqtt.MqttAdapter;
import io.ckc.gateway.udp.UdpAdapter;
import io.ckc.protocol.kafka.TopicSetup;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * A running gateway: the protocol-independent core with its sessions sharded over the event loops,
 * the reliable-UDP adapter and, unless turned off, the MQTT one, the Kafka publisher and the consumer of what the core sends, the metrics
 * endpoint.
 */
public final class Gateway implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    private final GatewayConfig config;
    /** The loops and producer, when this gateway opened them itself; null when it runs on a process's {@link GatewayHost}. */
    private final GatewayHost ownHost;
    private final GatewayCore core;
    /** The protocols this gateway speaks; the reliable-UDP adapter first. */
    private final List<ProtocolAdapter> adapters;
    private final UdpAdapter udp;
    private final CorePublisher publisher;
    private final CoreConsumer consumer;
    private final HTTPServer metricsServer;
    private final GatewayMetrics metrics;

    private Gateway(GatewayConfig config, GatewayHost ownHost, GatewayCore core, List<ProtocolAdapter> adapters,
                    UdpAdapter udp, CorePublisher publisher, CoreConsumer consumer, HTTPServer metricsServer,
                    GatewayMetrics metrics) {
        this.metrics = metrics;
        this.config = config;
        this.ownHost = ownHost;
        this.core = core;
        this.adapters = adapters;
        this.udp = udp;
        this.publisher = publisher;
        this.consumer = consumer;
        this.metricsServer = metricsServer;
    }

    public static Gateway start(GatewayConfig config) throws IOException, InterruptedException {
        return start(config, null, null);
    }

    public static Gateway start(GatewayConfig config, Supplier<ChannelHandler> linkHook)
            throws IOException, InterruptedException {
        return start(config, null, linkHook);
    }

    /**
     * Starts a gateway. Ensures its own delivery topic exists (explicit partitions and retention,
     * never broker auto-creation), binds UDP, then starts consuming deliveries.
     *
     * @param host     the event loops and Kafka producer of a process that hosts several gateways, which this one
     *                 shares and leaves open when it stops; null for a host of its own (its
     *                 {@link GatewayConfig#eventLoops()} loops and a producer), which it closes
     * @param linkHook an optional first pipeline handler, for fault-injection tests; null for none
     */
    public static Gateway start(GatewayConfig config, GatewayHost host, Supplier<ChannelHandler> linkHook)
            throws IOException, InterruptedException {
        try (Admin admin = TopicSetup.admin(config.kafkaBootstrap())) {
            TopicSetup.create(admin, List.of(new TopicSetup(config.topics(), 1).gatewayTopic(config.gatewayId())));
        }
        if (config.security().insecure()) {
            LOG.warn("Gateway {} runs INSECURE (CKC_INSECURE=true): no authentication, plain frames; anyone who knows a "
                    + "node id can act as that node. For a perf baseline only.", config.gatewayId());
        }
        PrometheusRegistry registry = new PrometheusRegistry(); // its own, so that one process can host several
        GatewayMetrics metrics = new GatewayMetrics(config.gatewayId(), registry);
        HTTPServer metricsServer = null;
        GatewayHealth health = new GatewayHealth(); // /health/live and /health/ready beside /metrics
        if (config.metricsPort() >= 0) {
            JvmMetrics.builder().register(registry);
            metricsServer = HTTPServer.builder().hostname(config.udpHost()).port(config.metricsPort())
                    .registry(registry).defaultHandler(health).buildAndStart();
        }
        GatewayHost ownHost = host == null ? GatewayHost.open(List.of(config)) : null;
        GatewayHost runsOn = host == null ? ownHost : host;
        List<EventLoop> loops = new ArrayList<>();
        for (EventExecutor executor : runsOn.loops()) {
            loops.add((EventLoop) executor);
        }
        CorePublisher publisher = new KafkaCorePublisher(config.core(), metrics, runsOn.producer(), runsOn.flusher());
        GatewayCore core = new GatewayCore(config.core(), publisher, metrics, loops);
        UdpAdapter udp = UdpAdapter.start(config.udp(), core, metrics, linkHook);
        List<ProtocolAdapter> adapters = new ArrayList<>(List.of(udp));
        if (config.mqtt().isPresent()) {
            adapters.add(MqttAdapter.start(config.mqtt().get(), core, metrics, runsOn.loops()));
        }
        try {
            core.start(adapters.stream().map(ProtocolAdapter::endpoint).toList());
        } catch (ExecutionException e) {
            throw new IllegalStateException("gateway core did not start", e);
        }
        CoreConsumer consumer = new CoreConsumer(config.core(), core, publisher, metrics);
        consumer.start();
        health.watch(runsOn.loops(), () -> GatewayHealth.connected(runsOn.producer()));
        Gateway gateway = new Gateway(config, ownHost, core, adapters, udp, publisher, consumer, metricsServer, metrics);
        LOG.info("Gateway {} listening on udp://{} and {}, announced as {} ({} event loops, {} socket(s) on {}; metrics {})",
                config.gatewayId(), gateway.udpAddress(), gateway.mqttAddress().map(a -> "mqtt://" + a
                        + gateway.mqttWebSocketAddress().map(w -> " ws://" + w + "/mqtt").orElse("")).orElse("no MQTT"),
                adapters.stream().map(ProtocolAdapter::endpoint).toList(),
                loops.size(), udp.sockets(), DatagramTransport.current(),
                metricsServer == null ? "off" : "http://" + config.udpHost() + ":" + metricsServer.getPort() + "/metrics");
        return gateway;
    }

    /** What the gateway counts, as /metrics shows it. */
    public GatewayMetrics metrics() {
        return metrics;
    }

    public String id() {
        return config.gatewayId();
    }

    public InetSocketAddress udpAddress() {
        return udp.localAddress();
    }

    /** Where the MQTT adapter listens, when MQTT is on. */
    public Optional<InetSocketAddress> mqttAddress() {
        return adapters.stream().filter(a -> a instanceof MqttAdapter).map(a -> ((MqttAdapter) a).localAddress())
                .findFirst();
    }

    /** Where MQTT devices connect over WebSocket (path {@code /mqtt}), when that listener is on. */
    public Optional<InetSocketAddress> mqttWebSocketAddress() {
        return adapters.stream().filter(a -> a instanceof MqttAdapter).map(a -> (MqttAdapter) a)
                .flatMap(a -> a.webSocketAddress().stream()).findFirst();
    }

    /** The metrics port, or -1 when the endpoint is off. */
    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.getPort();
    }

    /**
     * Stops at once, the way {@code kill -9} stops a gateway process, for fault-injection tests in one
     * JVM: the sockets close, the consumer stops, the loops stop and the producer is dropped with
     * whatever it had not sent. The sessions are abandoned: no Disconnected events, no unsent
     * deliveries, no mini-buffer. Only a gateway with a host of its own can crash alone.
     */
    public void crash() throws InterruptedException {
        if (ownHost == null) {
            throw new IllegalStateException("gateway " + id() + " shares its host: crash the process instead");
        }
        for (ProtocolAdapter adapter : adapters) {
            adapter.close();
        }
        consumer.close();
        ownHost.crash();
        if (metricsServer != null) {
            metricsServer.close();
        }
    }

    @Override
    public void close() throws InterruptedException {
        consumer.close();
        core.close(); // sessions close: their Disconnected events and unsent deliveries are published
        for (ProtocolAdapter adapter : adapters) {
            adapter.close();
        }
        publisher.close();
        if (ownHost != null) {
            ownHost.close();
        }
        if (metricsServer != null) {
            metricsServer.close();
        }
    }
}
