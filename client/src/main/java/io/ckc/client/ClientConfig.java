package io.ckc.client;

import io.ckc.protocol.mrudp.ReliabilityConfig;

/**
 * Timing of a mobile node.
 *
 * @param keepaliveMs a node that heard nothing from its gateway for this long sends a ping: an idle node's
 *                    only traffic, so it sets the idle cost of a node (gateways ping a sample of their nodes)
 * @param silenceTimeoutMs a node that heard nothing for this long counts its connection as broken; between the
 *                         keepalive and this it pings three times, whether or not it is sending
 * @param connectRetryMs interval between connect attempts
 * @param connectAttempts connect attempts before giving up (and, with auto-reconnect, backing off)
 * @param reconnectDelayMs wait before reconnecting after a broken connection
 * @param autoReconnect whether a broken connection is re-established automatically
 * @param dedupeWindow how many recent message ids each node remembers to drop duplicates
 * @param handoverDrainMs on a handover, how long the node waits for its messages in flight to be
 *                        acknowledged by the old gateway before it moves (the rest are sent again on the new one)
 * @param maxQueueDelayMs a message that waited this long for room in the socket's congestion window, never
 *                        sent, goes back to the application as unsent: under a sustained overload the node
 *                        sheds what is late instead of letting every later message wait longer
 */
public record ClientConfig(ReliabilityConfig reliability, long keepaliveMs, long silenceTimeoutMs, long connectRetryMs,
                           int connectAttempts, long reconnectDelayMs, boolean autoReconnect, int dedupeWindow,
                           long handoverDrainMs, long maxQueueDelayMs) {

    public static final ClientConfig DEFAULT =
            new ClientConfig(ReliabilityConfig.DEFAULT, 15_000, 20_000, 500, 10, 1_000, true, 512, 2_000, 5_000);

    public ClientConfig withReliability(ReliabilityConfig value) {
        return new ClientConfig(value, keepaliveMs, silenceTimeoutMs, connectRetryMs, connectAttempts,
                reconnectDelayMs, autoReconnect, dedupeWindow, handoverDrainMs, maxQueueDelayMs);
    }

    public ClientConfig withAutoReconnect(boolean value) {
        return new ClientConfig(reliability, keepaliveMs, silenceTimeoutMs, connectRetryMs, connectAttempts,
                reconnectDelayMs, value, dedupeWindow, handoverDrainMs, maxQueueDelayMs);
    }

    public ClientConfig withMaxQueueDelay(long ms) {
        return new ClientConfig(reliability, keepaliveMs, silenceTimeoutMs, connectRetryMs, connectAttempts,
                reconnectDelayMs, autoReconnect, dedupeWindow, handoverDrainMs, ms);
    }

    /** How soon a node notices a silent gateway and how many connect attempts it spends on one gateway. */
    public ClientConfig withLiveness(long keepalive, long silenceTimeout, int attemptsPerGateway) {
        return new ClientConfig(reliability, keepalive, silenceTimeout, connectRetryMs, attemptsPerGateway,
                reconnectDelayMs, autoReconnect, dedupeWindow, handoverDrainMs, maxQueueDelayMs);
    }
}
