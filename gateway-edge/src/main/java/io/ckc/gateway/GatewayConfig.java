package io.ckc.gateway;

import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.mrudp.ReliabilityConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Typed gateway configuration, read from environment variables in this one place.
 *
 * <table>
 *   <caption>Environment variables</caption>
 *   <tr><td>CKC_GATEWAY_ID</td><td>gw-1</td><td>this gateway's id; its delivery topic is ckc.gw.&lt;id&gt;</td></tr>
 *   <tr><td>CKC_GATEWAY_IDS</td><td>CKC_GATEWAY_ID</td><td>several gateways in one process, comma-separated (see {@link #hostedFromEnv}): the n-th (from 0) listens on CKC_UDP_PORT + n and serves metrics on CKC_METRICS_PORT + n, and all share the process's CKC_EVENT_LOOPS event loops and one Kafka producer ({@link GatewayHost})</td></tr>
 *   <tr><td>CKC_KAFKA_BOOTSTRAP</td><td>127.0.0.1:9092</td><td>Kafka bootstrap servers</td></tr>
 *   <tr><td>CKC_KAFKA_CLIENT_CONFIG</td><td>none</td><td>Kafka client security settings (security.*, ssl.*, sasl.*) in a properties file, read by {@link io.ckc.protocol.kafka.KafkaClientConfig}</td></tr>
 *   <tr><td>CKC_UDP_HOST / CKC_UDP_PORT</td><td>127.0.0.1 / 5500</td><td>reliable-UDP listener (5500: the original gateway's port)</td></tr>
 *   <tr><td>CKC_METRICS_PORT</td><td>9400</td><td>Prometheus /metrics; -1 turns it off, 0 picks a free port</td></tr>
 *   <tr><td>CKC_TOPIC_PREFIX / CKC_APP_TOPIC_PREFIX</td><td>ckc. / app.</td><td>topic name prefixes</td></tr>
 *   <tr><td>CKC_MAX_PAYLOAD_BYTES</td><td>16384</td><td>largest payload accepted from or sent to an MN</td></tr>
 *   <tr><td>CKC_SESSION_TIMEOUT_MS</td><td>30000</td><td>a session silent this long is broken</td></tr>
 *   <tr><td>CKC_RETRANSMIT_MS / CKC_MAX_RETRIES</td><td>500 / 8</td><td>retransmission timeout until the round trip is measured, and its floor (it follows the measured round trip, doubles per retry, with jitter), and the retry budget</td></tr>
 *   <tr><td>CKC_KAFKA_LINGER_MS</td><td>0</td><td>producer linger: 0 for latency</td></tr>
 *   <tr><td>CKC_PUBLIC_HOST</td><td>CKC_UDP_HOST</td><td>the host mobile nodes use to reach this gateway (HelloPoA, gateway list)</td></tr>
 *   <tr><td>CKC_REPORT_PERIOD_MS</td><td>2000</td><td>LoadReport period; the PoA manager counts missed periods of it</td></tr>
 *   <tr><td>CKC_PING_INTERVAL_MS / CKC_PING_WINDOW_MS</td><td>5000 / 1000</td><td>ping windows until the PoA manager sends a PingConfig</td></tr>
 *   <tr><td>CKC_REPORT_CHUNK</td><td>2000</td><td>nodes per ConnectionReport record (a window of more nodes is split)</td></tr>
 *   <tr><td>CKC_GATEWAY_LIST_INTERVAL_MS</td><td>30000</td><td>a reordered gateway list goes to the nodes at most this often (a changed set at once)</td></tr>
 *   <tr><td>CKC_MINI_BUFFER</td><td>false</td><td>paper 4.2: keep the last two acknowledged messages per connection and put them on ckc.unsent when the connection fails</td></tr>
 *   <tr><td>CKC_PING_SAMPLE</td><td>1000</td><td>nodes pinged per window at most, drawn at random from the connected ones: enough for the statistics, and the idle cost of a node no longer grows with the window rate (nodes keep their sessions with their own keepalive)</td></tr>
 *   <tr><td>CKC_CONTEXT_REFRESH_MS</td><td>30000</td><td>a node's context goes to ckc.context when it changed, and an unchanged one at least this often (0: every message's)</td></tr>
 *   <tr><td>CKC_EVENT_LOOPS</td><td>the number of cores</td><td>event loops the sessions are sharded over by node id (the gateway's thread pool)</td></tr>
 *   <tr><td>CKC_UDP_SOCKET_PER_LOOP</td><td>true</td><td>one UDP socket per event loop on the same port (SO_REUSEPORT, where the OS has it); false: one socket for all loops</td></tr>
 *   <tr><td>CKC_UDP_TRANSPORT</td><td>auto</td><td>the Netty transport of the UDP sockets: epoll where it loads (one sendmmsg per flush), else nio; read by {@link io.ckc.protocol.netty.DatagramTransport}, as in every CKC process with UDP sockets</td></tr>
 *   <tr><td>CKC_ADMIT_PER_SECOND</td><td>2000</td><td>new sessions admitted per second at most (a token bucket, shared out over the event loops); a node refused is told BUSY and tries again after its backoff</td></tr>
 *   <tr><td>CKC_ADMIT_PENDING</td><td>500</td><td>sessions per event loop whose Connected event is not yet in Kafka at most: new ones wait, so admissions slow down as Kafka does</td></tr>
 *   <tr><td>CKC_DOWNLINK_BACKLOG</td><td>20000</td><td>deliveries taken from Kafka and not yet acknowledged by their nodes at most; above it the gateway reads no more until its nodes catch up, so an overload's backlog stays in Kafka</td></tr>
 *   <tr><td>CKC_UPLINK_TARGET_AGE_MS</td><td>250</td><td>admission of uplink messages ({@link io.ckc.gateway.core.UplinkAdmission}, after PIE): the median age of the deliveries read (now minus their Kafka timestamp, which is that of the message they answer) that the gateway steers to by refusing a share of uplink messages with BUSY; 0: never refuse</td></tr>
 *   <tr><td>CKC_UPLINK_BURST_MS</td><td>10000</td><td>how long that age may stay above the target (a checkpoint, a rescale's restart) before any message is refused</td></tr>
 * </table>
 */
public record GatewayConfig(String gatewayId, String kafkaBootstrap, String udpHost, int udpPort, int metricsPort,
                            Topics topics, int maxPayloadBytes, long sessionTimeoutMs, ReliabilityConfig reliability,
                            int kafkaLingerMs, String publicHost, long reportPeriodMs, long pingIntervalMs,
                            long pingWindowMs, int reportChunk, long gatewayListIntervalMs,
                            boolean miniBuffer, int pingSample, long contextRefreshMs, int eventLoops,
                            boolean udpSocketPerLoop, int admitPerSecond, int admitPending,
                            int downlinkBacklog, long uplinkTargetAgeMs, long uplinkBurstMs) {

    public static final int DEFAULT_UDP_PORT = 5500;

    public GatewayConfig {
        if (!Topics.isValidGatewayId(gatewayId)) {
            throw new IllegalArgumentException("CKC_GATEWAY_ID '" + gatewayId + "' is not a valid gateway id: letters, "
                    + "digits, '-' and '_' only, and not hello/load/connections/list/stats/rounds");
        }
        if (reportPeriodMs <= 0 || pingIntervalMs <= 0 || pingWindowMs <= 0 || pingWindowMs > pingIntervalMs
                || reportChunk <= 0) {
            throw new IllegalArgumentException("report period, ping interval, ping window and report chunk must be "
                    + "positive, and the ping window no longer than the interval");
        }
        if (contextRefreshMs < 0) {
            throw new IllegalArgumentException("CKC_CONTEXT_REFRESH_MS must not be negative, got " + contextRefreshMs);
        }
        if (pingSample <= 0) {
            throw new IllegalArgumentException("CKC_PING_SAMPLE must be positive, got " + pingSample);
        }
        if (downlinkBacklog <= 0) {
            throw new IllegalArgumentException("CKC_DOWNLINK_BACKLOG must be positive, got " + downlinkBacklog);
        }
        if (admitPerSecond <= 0 || admitPending <= 0) {
            throw new IllegalArgumentException("CKC_ADMIT_PER_SECOND and CKC_ADMIT_PENDING must be positive, got "
                    + admitPerSecond + " and " + admitPending);
        }
        if (uplinkTargetAgeMs < 0 || uplinkBurstMs < 0) {
            throw new IllegalArgumentException("CKC_UPLINK_TARGET_AGE_MS and CKC_UPLINK_BURST_MS must not be negative, got "
                    + uplinkTargetAgeMs + " and " + uplinkBurstMs);
        }
        if (eventLoops <= 0) {
            throw new IllegalArgumentException("CKC_EVENT_LOOPS must be positive, got " + eventLoops);
        }
    }

    public static GatewayConfig fromEnv(Map<String, String> env) {
        ReliabilityConfig defaults = ReliabilityConfig.DEFAULT;
        return new GatewayConfig(
                env.getOrDefault("CKC_GATEWAY_ID", "gw-1"),
                env.getOrDefault("CKC_KAFKA_BOOTSTRAP", "127.0.0.1:9092"),
                env.getOrDefault("CKC_UDP_HOST", "127.0.0.1"),
                intOf(env, "CKC_UDP_PORT", DEFAULT_UDP_PORT),
                intOf(env, "CKC_METRICS_PORT", 9400),
                new Topics(env.getOrDefault("CKC_TOPIC_PREFIX", Topics.DEFAULT.prefix()),
                        env.getOrDefault("CKC_APP_TOPIC_PREFIX", Topics.DEFAULT.appPrefix())),
                intOf(env, "CKC_MAX_PAYLOAD_BYTES", 16 * 1024),
                intOf(env, "CKC_SESSION_TIMEOUT_MS", 30_000),
                new ReliabilityConfig(intOf(env, "CKC_RETRANSMIT_MS", (int) defaults.initialRetransmitMs()),
                        defaults.maxRetransmitMs(), intOf(env, "CKC_MAX_RETRIES", defaults.maxRetries()),
                        defaults.sendWindow(), defaults.receiveWindow(), defaults.jitter()),
                intOf(env, "CKC_KAFKA_LINGER_MS", 0),
                env.getOrDefault("CKC_PUBLIC_HOST", env.getOrDefault("CKC_UDP_HOST", "127.0.0.1")),
                intOf(env, "CKC_REPORT_PERIOD_MS", 2_000),
                intOf(env, "CKC_PING_INTERVAL_MS", 5_000),
                intOf(env, "CKC_PING_WINDOW_MS", 1_000),
                intOf(env, "CKC_REPORT_CHUNK", 2_000),
                intOf(env, "CKC_GATEWAY_LIST_INTERVAL_MS", 30_000),
                Boolean.parseBoolean(env.getOrDefault("CKC_MINI_BUFFER", "false")),
                intOf(env, "CKC_PING_SAMPLE", 1_000),
                intOf(env, "CKC_CONTEXT_REFRESH_MS", 30_000),
                intOf(env, "CKC_EVENT_LOOPS", Runtime.getRuntime().availableProcessors()),
                Boolean.parseBoolean(env.getOrDefault("CKC_UDP_SOCKET_PER_LOOP", "true")),
                intOf(env, "CKC_ADMIT_PER_SECOND", 2_000),
                intOf(env, "CKC_ADMIT_PENDING", 500),
                intOf(env, "CKC_DOWNLINK_BACKLOG", 20_000),
                intOf(env, "CKC_UPLINK_TARGET_AGE_MS", 250),
                intOf(env, "CKC_UPLINK_BURST_MS", 10_000));
    }

    /**
     * The gateways one process hosts: one per id of CKC_GATEWAY_IDS (else the one of CKC_GATEWAY_ID), the
     * n-th on the UDP and metrics ports n above the configured ones (a port of 0, any free one, and a metrics
     * port of -1, none, stay as they are).
     */
    public static List<GatewayConfig> hostedFromEnv(Map<String, String> env) {
        GatewayConfig first = fromEnv(env);
        String ids = env.get("CKC_GATEWAY_IDS");
        if (ids == null || ids.isBlank()) {
            return List.of(first);
        }
        List<GatewayConfig> hosted = new ArrayList<>();
        for (String id : ids.split(",")) {
            int n = hosted.size();
            hosted.add(first.with(id.trim(), first.kafkaBootstrap, first.udpPort == 0 ? 0 : first.udpPort + n,
                    first.metricsPort <= 0 ? first.metricsPort : first.metricsPort + n, first.topics));
        }
        if (hosted.stream().map(GatewayConfig::gatewayId).distinct().count() < hosted.size()) {
            throw new IllegalArgumentException("CKC_GATEWAY_IDS names a gateway twice: " + ids);
        }
        return List.copyOf(hosted);
    }

    /** Defaults for tests and embedding: the given id and Kafka, any free UDP port, no metrics server. */
    public static GatewayConfig forTest(String gatewayId, String kafkaBootstrap, Topics topics) {
        return fromEnv(Map.of()).with(gatewayId, kafkaBootstrap, 0, -1, topics);
    }

    public GatewayConfig with(String id, String bootstrap, int port, int metrics, Topics topicNames) {
        return new GatewayConfig(id, bootstrap, udpHost, port, metrics, topicNames, maxPayloadBytes, sessionTimeoutMs,
                reliability, kafkaLingerMs, publicHost, reportPeriodMs, pingIntervalMs, pingWindowMs, reportChunk, gatewayListIntervalMs,
                miniBuffer, pingSample, contextRefreshMs, eventLoops, udpSocketPerLoop, admitPerSecond, admitPending, downlinkBacklog,
                uplinkTargetAgeMs, uplinkBurstMs);
    }

    public GatewayConfig withSessionTimeout(long timeoutMs, ReliabilityConfig reliabilityConfig) {
        return new GatewayConfig(gatewayId, kafkaBootstrap, udpHost, udpPort, metricsPort, topics, maxPayloadBytes,
                timeoutMs, reliabilityConfig, kafkaLingerMs, publicHost, reportPeriodMs, pingIntervalMs, pingWindowMs,
                reportChunk, gatewayListIntervalMs, miniBuffer, pingSample, contextRefreshMs, eventLoops, udpSocketPerLoop, admitPerSecond, admitPending, downlinkBacklog,
                uplinkTargetAgeMs, uplinkBurstMs);
    }

    /** Faster reports and pings, for tests of the PoA manager. */
    public GatewayConfig withReports(long reportPeriod, long pingInterval, long pingWindow, int chunk) {
        return new GatewayConfig(gatewayId, kafkaBootstrap, udpHost, udpPort, metricsPort, topics, maxPayloadBytes,
                sessionTimeoutMs, reliability, kafkaLingerMs, publicHost, reportPeriod, pingInterval, pingWindow, chunk,
                gatewayListIntervalMs, miniBuffer, pingSample, contextRefreshMs, eventLoops, udpSocketPerLoop, admitPerSecond, admitPending, downlinkBacklog,
                uplinkTargetAgeMs, uplinkBurstMs);
    }

    public GatewayConfig withMiniBuffer(boolean on) {
        return new GatewayConfig(gatewayId, kafkaBootstrap, udpHost, udpPort, metricsPort, topics, maxPayloadBytes,
                sessionTimeoutMs, reliability, kafkaLingerMs, publicHost, reportPeriodMs, pingIntervalMs, pingWindowMs,
                reportChunk, gatewayListIntervalMs, on, pingSample, contextRefreshMs, eventLoops, udpSocketPerLoop, admitPerSecond, admitPending, downlinkBacklog,
                uplinkTargetAgeMs, uplinkBurstMs);
    }

    /** The same gateway admitting new sessions at most this fast, with at most this many per loop awaiting their Connected event. */
    public GatewayConfig withAdmission(int perSecond, int pending) {
        return new GatewayConfig(gatewayId, kafkaBootstrap, udpHost, udpPort, metricsPort, topics, maxPayloadBytes,
                sessionTimeoutMs, reliability, kafkaLingerMs, publicHost, reportPeriodMs, pingIntervalMs, pingWindowMs,
                reportChunk, gatewayListIntervalMs, miniBuffer, pingSample, contextRefreshMs, eventLoops, udpSocketPerLoop,
                perSecond, pending, downlinkBacklog, uplinkTargetAgeMs, uplinkBurstMs);
    }

    /** The same gateway steering its deliveries' median age to {@code targetMs} after {@code burstMs} above it (0: off). */
    public GatewayConfig withUplinkAdmission(long targetMs, long burstMs) {
        return new GatewayConfig(gatewayId, kafkaBootstrap, udpHost, udpPort, metricsPort, topics, maxPayloadBytes,
                sessionTimeoutMs, reliability, kafkaLingerMs, publicHost, reportPeriodMs, pingIntervalMs, pingWindowMs,
                reportChunk, gatewayListIntervalMs, miniBuffer, pingSample, contextRefreshMs, eventLoops, udpSocketPerLoop,
                admitPerSecond, admitPending, downlinkBacklog, targetMs, burstMs);
    }

    /** The same gateway writing an unchanged context at least this often (0: every one). */
    public GatewayConfig withContextRefresh(long ms) {
        return new GatewayConfig(gatewayId, kafkaBootstrap, udpHost, udpPort, metricsPort, topics, maxPayloadBytes,
                sessionTimeoutMs, reliability, kafkaLingerMs, publicHost, reportPeriodMs, pingIntervalMs, pingWindowMs,
                reportChunk, gatewayListIntervalMs, miniBuffer, pingSample, ms, eventLoops, udpSocketPerLoop, admitPerSecond, admitPending, downlinkBacklog,
                uplinkTargetAgeMs, uplinkBurstMs);
    }



    private static int intOf(Map<String, String> env, String name, int fallback) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, got '" + value + "'", e);
        }
    }
}
