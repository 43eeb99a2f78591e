package io.ckc.client;

import io.ckc.protocol.mrudp.ReliabilityConfig;

/**
 * Timing of a mobile node.
 *
 * @param keepaliveMs a node that heard nothing from its gateway for this long sends a ping
 * @param silenceTimeoutMs a node that heard nothing for this long counts its connection as broken
 * @param connectRetryMs interval between connect attempts
 * @param connectAttempts connect attempts before giving up (and, with auto-reconnect, backing off)
 * @param reconnectDelayMs wait before reconnecting after a broken connection
 * @param autoReconnect whether a broken connection is re-established automatically
 * @param dedupeWindow how many recent message ids each node remembers to drop duplicates
 */
public record ClientConfig(ReliabilityConfig reliability, long keepaliveMs, long silenceTimeoutMs, long connectRetryMs,
                           int connectAttempts, long reconnectDelayMs, boolean autoReconnect, int dedupeWindow) {

    public static final ClientConfig DEFAULT =
            new ClientConfig(ReliabilityConfig.DEFAULT, 5_000, 20_000, 500, 10, 1_000, true, 512);

    public ClientConfig withReliability(ReliabilityConfig value) {
        return new ClientConfig(value, keepaliveMs, silenceTimeoutMs, connectRetryMs, connectAttempts,
                reconnectDelayMs, autoReconnect, dedupeWindow);
    }

    public ClientConfig withAutoReconnect(boolean value) {
        return new ClientConfig(reliability, keepaliveMs, silenceTimeoutMs, connectRetryMs, connectAttempts,
                reconnectDelayMs, value, dedupeWindow);
    }
}
