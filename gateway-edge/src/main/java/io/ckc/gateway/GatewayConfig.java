package io.ckc.gateway;

import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.mrudp.ReliabilityConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.ckc.gateway.GatewaySettings.*;

/**
 * Typed gateway configuration, read from environment variables in this one place; each variable is
 * declared, with its default and meaning, in {@link GatewaySettings} (and listed in docs/configuration.md).
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
        String udpHost = UDP_HOST.string(env);
        return new GatewayConfig(
                GATEWAY_ID.string(env),
                KAFKA_BOOTSTRAP.string(env),
                udpHost,
                UDP_PORT.integer(env),
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
                UPLINK_BURST_MS.integer(env));
    }

    /**
     * The gateways one process hosts: one per id of CKC_GATEWAY_IDS (else the one of CKC_GATEWAY_ID), the
     * n-th on the UDP and metrics ports n above the configured ones (a port of 0, any free one, and a metrics
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
}
