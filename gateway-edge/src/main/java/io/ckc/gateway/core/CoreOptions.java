package io.ckc.gateway.core;

import io.ckc.protocol.kafka.Topics;

/**
 * What the gateway core needs to know, whatever protocols its adapters speak (Eclipse Hono's
 * {@code ProtocolAdapterOptions}). The gateway process reads them with the adapters' own options from
 * its environment ({@code GatewayConfig}, {@code GatewaySettings}).
 */
public record CoreOptions(String gatewayId, String kafkaBootstrap, Topics topics, int maxPayloadBytes,
                          long sessionTimeoutMs, int kafkaLingerMs, long reportPeriodMs, long pingIntervalMs,
                          long pingWindowMs, int reportChunk, long gatewayListIntervalMs, boolean miniBuffer,
                          int pingSample, long contextRefreshMs, int admitPerSecond, int admitPending,
                          int downlinkBacklog, long uplinkTargetAgeMs, long uplinkBurstMs, RateLimits limits,
                          SecurityOptions security) {
}
