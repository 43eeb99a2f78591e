package io.ckc.gateway;

import io.ckc.gateway.core.CoreOptions;
import io.ckc.gateway.core.RateLimits;
import io.ckc.gateway.core.SecurityOptions;
import io.ckc.gateway.mqtt.MqttOptions;
import io.ckc.gateway.udp.UdpOptions;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.mrudp.ReliabilityConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.ckc.gateway.GatewaySettings.*;

/**
 * Typed gateway configuration, read from environment variables in this one place; each variable is
 * declared, with its default and meaning, in {@link GatewaySettings} (and listed in docs/configuration.md).
 */
public record GatewayConfig(String gatewayId, String kafkaBootstrap, String udpHost, int udpPort, int mqttPort,
                            int mqttWebSocketPort, int metricsPort,
                            Topics topics, int maxPayloadBytes, long sessionTimeoutMs, ReliabilityConfig reliability,
                            int kafkaLingerMs, String publicHost, long reportPeriodMs, long pingIntervalMs,
                            long pingWindowMs, int reportChunk, long gatewayListIntervalMs,
                            boolean miniBuffer, int pingSample, long contextRefreshMs, int eventLoops,
                            boolean udpSocketPerLoop, int admitPerSecond, int admitPending,
                            int downlinkBacklog, long uplinkTargetAgeMs, long uplinkBurstMs, RateLimits limits,
                            SecurityOptions security) {

    public static final int DEFAULT_UDP_PORT = 5500;
    /** MQTT over TLS: the port devices' clients go to for TLS (IANA's secure-mqtt). */
    public static final int DEFAULT_MQTT_PORT = 8883;
    /** Plain MQTT, where nodes do not authenticate ({@code CKC_INSECURE=true}): the port of MQTT without TLS. */
    public static final int DEFAULT_PLAIN_MQTT_PORT = 1883;
    /** MQTT over WebSocket, path {@code /mqtt} (the port EMQX and HiveMQ use for it). */
    public static final int DEFAULT_MQTT_WEBSOCKET_PORT = 8083;

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
        if (mqttPort < -1 || mqttPort > 65_535) {
            throw new IllegalArgumentException("CKC_MQTT_PORT must be a port, 0 (any free one) or -1 (off), got " + mqttPort);
        }
        if (mqttWebSocketPort < -1 || mqttWebSocketPort > 65_535) {
            throw new IllegalArgumentException("CKC_MQTT_WS_PORT must be a port, 0 (any free one) or -1 (off), got "
                    + mqttWebSocketPort);
        }
        if (eventLoops <= 0) {
            throw new IllegalArgumentException("CKC_EVENT_LOOPS must be positive, got " + eventLoops);
        }
    }

    public static GatewayConfig fromEnv(Map<String, String> env) {
        ReliabilityConfig defaults = ReliabilityConfig.DEFAULT;
        String udpHost = UDP_HOST.string(env);
        return new GatewayConfig(
                GATEWAY_ID.string(env),
                KAFKA_BOOTSTRAP.string(env),
                udpHost,
                UDP_PORT.integer(env),
                mqttPort(env),
                MQTT_WS_PORT.integer(env),
                METRICS_PORT.integer(env),
                new Topics(TOPIC_PREFIX.string(env), APP_TOPIC_PREFIX.string(env)),
                MAX_PAYLOAD_BYTES.integer(env),
                SESSION_TIMEOUT_MS.integer(env),
                new ReliabilityConfig(RETRANSMIT_MS.integer(env), defaults.maxRetransmitMs(), MAX_RETRIES.integer(env),
                        defaults.sendWindow(), defaults.receiveWindow(), defaults.jitter()),
                KAFKA_LINGER_MS.integer(env),
                PUBLIC_HOST.string(env, udpHost),
                REPORT_PERIOD_MS.integer(env),
                PING_INTERVAL_MS.integer(env),
                PING_WINDOW_MS.integer(env),
                REPORT_CHUNK.integer(env),
                GATEWAY_LIST_INTERVAL_MS.integer(env),
                MINI_BUFFER.bool(env),
                PING_SAMPLE.integer(env),
                CONTEXT_REFRESH_MS.integer(env),
                EVENT_LOOPS.integer(env, Runtime.getRuntime().availableProcessors()),
                UDP_SOCKET_PER_LOOP.bool(env),
                ADMIT_PER_SECOND.integer(env),
                ADMIT_PENDING.integer(env),
                DOWNLINK_BACKLOG.integer(env),
                UPLINK_TARGET_AGE_MS.integer(env),
                UPLINK_BURST_MS.integer(env),
                new RateLimits(NODE_MESSAGES_PER_SECOND.integer(env), NODE_BYTES_PER_SECOND.integer(env),
                        ADDRESS_SESSIONS_PER_SECOND.integer(env), ADDRESS_SESSIONS_BURST.integer(env),
                        FLAP_SESSIONS.integer(env), FLAP_WINDOW_MS.integer(env), FLAP_PENALTY_MS.integer(env)),
                security(env));
    }

    /** {@code CKC_MQTT_PORT}, or MQTT over TLS's port, or plain MQTT's where nodes do not authenticate. */
    private static int mqttPort(Map<String, String> env) {
        return MQTT_PORT.integer(env, INSECURE.bool(env) ? DEFAULT_PLAIN_MQTT_PORT : DEFAULT_MQTT_PORT);
    }

    private static SecurityOptions security(Map<String, String> env) {
        String credentials = CREDENTIALS.string(env);
        boolean insecure = INSECURE.bool(env);
        if (insecure == (credentials != null)) {
            throw new IllegalArgumentException(insecure
                    ? "CKC_INSECURE=true and CKC_CREDENTIALS are both set: authenticate nodes against the store, or not"
                    : "nodes must authenticate: set CKC_CREDENTIALS to the credential store (./ckc credentials), or "
                    + "CKC_INSECURE=true for a perf baseline without authentication");
        }
        String keystore = TLS_KEYSTORE.string(env);
        if (credentials != null && keystore == null && mqttPort(env) >= 0) {
            throw new IllegalArgumentException("MQTT devices authenticate with a password, which needs TLS: set "
                    + "CKC_TLS_KEYSTORE (and CKC_TLS_KEYSTORE_PASSWORD), or turn MQTT off with CKC_MQTT_PORT=-1");
        }
        return new SecurityOptions(credentials, DTLS_HANDSHAKES_PER_ADDRESS.integer(env), DTLS_MAX_HANDSHAKES.integer(env),
                2L * SESSION_TIMEOUT_MS.integer(env), keystore, TLS_KEYSTORE_PASSWORD.string(env),
                TLS_CLIENT_CA.string(env));
    }

    /**
     * The gateways one process hosts: one per id of CKC_GATEWAY_IDS (else the one of CKC_GATEWAY_ID), the
     * n-th on the UDP, MQTT and metrics ports n above the configured ones (a port of 0, any free one, and a metrics
     * port of -1, none, stay as they are).
     */
    public static List<GatewayConfig> hostedFromEnv(Map<String, String> env) {
        GatewayConfig first = fromEnv(env);
        String ids = GATEWAY_IDS.string(env);
        if (ids == null) {
            return List.of(first);
        }
        List<GatewayConfig> hosted = new ArrayList<>();
        for (String id : ids.split(",")) {
            int n = hosted.size();
            hosted.add(first.toBuilder().gatewayId(id.trim()).udpPort(first.udpPort == 0 ? 0 : first.udpPort + n)
                    .mqttPort(first.mqttPort <= 0 ? first.mqttPort : first.mqttPort + n)
                    .mqttWebSocketPort(first.mqttWebSocketPort <= 0 ? first.mqttWebSocketPort
                            : first.mqttWebSocketPort + n)
                    .metricsPort(first.metricsPort <= 0 ? first.metricsPort : first.metricsPort + n).build());
        }
        if (hosted.stream().map(GatewayConfig::gatewayId).distinct().count() < hosted.size()) {
            throw new IllegalArgumentException("CKC_GATEWAY_IDS names a gateway twice: " + ids);
        }
        return List.copyOf(hosted);
    }

    /**
     * Defaults for tests and embedding: the given id and Kafka, any free UDP port, no MQTT, no metrics server, and
     * the insecure mode (a test of authentication sets {@link Builder#security}).
     */
    public static GatewayConfig forTest(String gatewayId, String kafkaBootstrap, Topics topics) {
        return fromEnv(Map.of(INSECURE.name(), "true")).toBuilder().gatewayId(gatewayId).kafkaBootstrap(kafkaBootstrap).udpPort(0).mqttPort(-1)
                .mqttWebSocketPort(-1).metricsPort(-1).topics(topics).build();
    }

    /** The gateway core's part of this configuration. */
    public CoreOptions core() {
        return new CoreOptions(gatewayId, kafkaBootstrap, topics, maxPayloadBytes, sessionTimeoutMs, kafkaLingerMs,
                reportPeriodMs, pingIntervalMs, pingWindowMs, reportChunk, gatewayListIntervalMs, miniBuffer,
                pingSample, contextRefreshMs, admitPerSecond, admitPending, downlinkBacklog, uplinkTargetAgeMs,
                uplinkBurstMs, limits, security);
    }

    /** The reliable-UDP adapter's part of this configuration. */
    public UdpOptions udp() {
        return new UdpOptions(udpHost, udpPort, publicHost, udpSocketPerLoop, reliability);
    }

    /** The MQTT adapter's part of this configuration; empty when MQTT is off. */
    public Optional<MqttOptions> mqtt() {
        // room for the topic, the packet's header and its properties beside the largest payload
        return mqttPort < 0 ? Optional.empty()
                : Optional.of(new MqttOptions(udpHost, mqttPort, mqttWebSocketPort, publicHost,
                        maxPayloadBytes + 4 * 1024));
    }

    /** A builder that starts from this configuration: the one way to derive a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** A configuration like another but for the fields set; {@link #build} validates the whole. */
    public static final class Builder {
        private String gatewayId;
        private String kafkaBootstrap;
        private String udpHost;
        private int udpPort;
        private int mqttPort;
        private int mqttWebSocketPort;
        private int metricsPort;
        private Topics topics;
        private int maxPayloadBytes;
        private long sessionTimeoutMs;
        private ReliabilityConfig reliability;
        private int kafkaLingerMs;
        private String publicHost;
        private long reportPeriodMs;
        private long pingIntervalMs;
        private long pingWindowMs;
        private int reportChunk;
        private long gatewayListIntervalMs;
        private boolean miniBuffer;
        private int pingSample;
        private long contextRefreshMs;
        private int eventLoops;
        private boolean udpSocketPerLoop;
        private int admitPerSecond;
        private int admitPending;
        private int downlinkBacklog;
        private long uplinkTargetAgeMs;
        private long uplinkBurstMs;
        private RateLimits limits;
        private SecurityOptions security;

        private Builder(GatewayConfig from) {
            this.gatewayId = from.gatewayId;
            this.kafkaBootstrap = from.kafkaBootstrap;
            this.udpHost = from.udpHost;
            this.udpPort = from.udpPort;
            this.mqttPort = from.mqttPort;
            this.mqttWebSocketPort = from.mqttWebSocketPort;
            this.metricsPort = from.metricsPort;
            this.topics = from.topics;
            this.maxPayloadBytes = from.maxPayloadBytes;
            this.sessionTimeoutMs = from.sessionTimeoutMs;
            this.reliability = from.reliability;
            this.kafkaLingerMs = from.kafkaLingerMs;
            this.publicHost = from.publicHost;
            this.reportPeriodMs = from.reportPeriodMs;
            this.pingIntervalMs = from.pingIntervalMs;
            this.pingWindowMs = from.pingWindowMs;
            this.reportChunk = from.reportChunk;
            this.gatewayListIntervalMs = from.gatewayListIntervalMs;
            this.miniBuffer = from.miniBuffer;
            this.pingSample = from.pingSample;
            this.contextRefreshMs = from.contextRefreshMs;
            this.eventLoops = from.eventLoops;
            this.udpSocketPerLoop = from.udpSocketPerLoop;
            this.admitPerSecond = from.admitPerSecond;
            this.admitPending = from.admitPending;
            this.downlinkBacklog = from.downlinkBacklog;
            this.uplinkTargetAgeMs = from.uplinkTargetAgeMs;
            this.uplinkBurstMs = from.uplinkBurstMs;
            this.limits = from.limits;
            this.security = from.security;
        }

        public Builder gatewayId(String value) {
            this.gatewayId = value;
            return this;
        }

        public Builder kafkaBootstrap(String value) {
            this.kafkaBootstrap = value;
            return this;
        }

        public Builder udpHost(String value) {
            this.udpHost = value;
            return this;
        }

        public Builder udpPort(int value) {
            this.udpPort = value;
            return this;
        }

        public Builder mqttWebSocketPort(int value) {
            this.mqttWebSocketPort = value;
            return this;
        }

        public Builder mqttPort(int value) {
            this.mqttPort = value;
            return this;
        }

        public Builder metricsPort(int value) {
            this.metricsPort = value;
            return this;
        }

        public Builder topics(Topics value) {
            this.topics = value;
            return this;
        }

        public Builder maxPayloadBytes(int value) {
            this.maxPayloadBytes = value;
            return this;
        }

        public Builder sessionTimeoutMs(long value) {
            this.sessionTimeoutMs = value;
            return this;
        }

        public Builder reliability(ReliabilityConfig value) {
            this.reliability = value;
            return this;
        }

        public Builder kafkaLingerMs(int value) {
            this.kafkaLingerMs = value;
            return this;
        }

        public Builder publicHost(String value) {
            this.publicHost = value;
            return this;
        }

        public Builder reportPeriodMs(long value) {
            this.reportPeriodMs = value;
            return this;
        }

        public Builder pingIntervalMs(long value) {
            this.pingIntervalMs = value;
            return this;
        }

        public Builder pingWindowMs(long value) {
            this.pingWindowMs = value;
            return this;
        }

        public Builder reportChunk(int value) {
            this.reportChunk = value;
            return this;
        }

        public Builder gatewayListIntervalMs(long value) {
            this.gatewayListIntervalMs = value;
            return this;
        }

        public Builder miniBuffer(boolean value) {
            this.miniBuffer = value;
            return this;
        }

        public Builder pingSample(int value) {
            this.pingSample = value;
            return this;
        }

        public Builder contextRefreshMs(long value) {
            this.contextRefreshMs = value;
            return this;
        }

        public Builder eventLoops(int value) {
            this.eventLoops = value;
            return this;
        }

        public Builder udpSocketPerLoop(boolean value) {
            this.udpSocketPerLoop = value;
            return this;
        }

        public Builder admitPerSecond(int value) {
            this.admitPerSecond = value;
            return this;
        }

        public Builder admitPending(int value) {
            this.admitPending = value;
            return this;
        }

        public Builder downlinkBacklog(int value) {
            this.downlinkBacklog = value;
            return this;
        }

        public Builder uplinkTargetAgeMs(long value) {
            this.uplinkTargetAgeMs = value;
            return this;
        }

        public Builder uplinkBurstMs(long value) {
            this.uplinkBurstMs = value;
            return this;
        }

        public Builder security(SecurityOptions value) {
            this.security = value;
            return this;
        }

        public Builder limits(RateLimits value) {
            this.limits = value;
            return this;
        }

        public GatewayConfig build() {
            return new GatewayConfig(gatewayId, kafkaBootstrap, udpHost, udpPort, mqttPort, mqttWebSocketPort, metricsPort, topics, maxPayloadBytes, sessionTimeoutMs, reliability, kafkaLingerMs, publicHost, reportPeriodMs, pingIntervalMs, pingWindowMs, reportChunk, gatewayListIntervalMs, miniBuffer, pingSample, contextRefreshMs, eventLoops, udpSocketPerLoop, admitPerSecond, admitPending, downlinkBacklog, uplinkTargetAgeMs, uplinkBurstMs, limits, security);
        }
    }
}
