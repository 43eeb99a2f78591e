package io.ckc.client;

import io.ckc.protocol.mrudp.ReliabilityConfig;

/**
 * Timing of a mobile node.
 *
 * @param keepaliveMs a node that heard nothing from its gateway for this long sends a ping: an idle node's
 *                    only traffic, so it sets the idle cost of a node (gateways ping a sample of their nodes)
 * @param silenceTimeoutMs a node that heard nothing for this long counts its connection as broken; between the
 *                         keepalive and this it pings three times, whether or not it is sending
 * @param unansweredProbeMs a node that has waited this long for an acknowledgement with nothing heard probes its
 *                          gateway every this long; three unanswered probes and the gateway counts as gone, so a node
 *                          whose gateway died moves to the next 4 x this after its first frame went unanswered (on a
 *                          path whose round-trip timeout is longer, that timeout instead, up to 4 x this)
 * @param connectRetryMs interval between connect attempts
 * @param connectAttempts connect attempts before giving up (and, with auto-reconnect, backing off)
 * @param reconnectDelayMs wait before reconnecting to the same gateway after a broken connection (a node whose
 *                         gateway failed moves to the next at once, within a short random spread, and one whose
 *                         gateway answers that it lost the session, as after a restart, connects there again so)
 * @param autoReconnect whether a broken connection is re-established automatically
 * @param dedupeWindow how many recent message ids each node remembers to drop duplicates
 * @param handoverDrainMs on a handover, how long the node waits for its messages in flight to be
 *                        acknowledged by the old gateway before it moves (the rest are sent again on the new one)
 * @param maxQueueDelayMs 0 (the default): a message waiting for room in the socket's congestion window waits as
 *                        long as one in the outbox ({@code outboxTtlMs}), since a gateway that holds back its
 *                        acknowledgements (Kafka restarting) must not make the node give up; otherwise a message
 *                        that waited this long goes back to the application as unsent, for an application that
 *                        would rather shed what is late under a sustained overload than let every later message
 *                        wait longer (the perf suite's open-loop load does); such a node also gets back what a
 *                        gateway refused as BUSY, which a node otherwise sends again a little later
 * @param outboxCapacity how many messages the node keeps while no gateway takes them (none reachable, or the
 *                       one it had died with them unacknowledged); past it, a new message is handed back as unsent
 * @param outboxTtlMs how long a message may wait in the outbox before it is handed back as unsent
 */
public record ClientConfig(ReliabilityConfig reliability, long keepaliveMs, long silenceTimeoutMs,
                           long unansweredProbeMs, long connectRetryMs, int connectAttempts, long reconnectDelayMs,
                           boolean autoReconnect, int dedupeWindow, long handoverDrainMs, long maxQueueDelayMs,
                           int outboxCapacity, long outboxTtlMs) {

    public static final ClientConfig DEFAULT = new ClientConfig(ReliabilityConfig.DEFAULT, 15_000, 20_000, 250, 500,
            10, 1_000, true, 512, 2_000, 0, 10_000, 300_000);

    public ClientConfig withReliability(ReliabilityConfig value) {
        return new ClientConfig(value, keepaliveMs, silenceTimeoutMs, unansweredProbeMs, connectRetryMs,
                connectAttempts, reconnectDelayMs, autoReconnect, dedupeWindow, handoverDrainMs, maxQueueDelayMs,
                outboxCapacity, outboxTtlMs);
    }

    public ClientConfig withAutoReconnect(boolean value) {
        return new ClientConfig(reliability, keepaliveMs, silenceTimeoutMs, unansweredProbeMs, connectRetryMs,
                connectAttempts, reconnectDelayMs, value, dedupeWindow, handoverDrainMs, maxQueueDelayMs,
                outboxCapacity, outboxTtlMs);
    }

    /** How long a node waits before it connects again, or sends again what a gateway could not write to the core. */
    public ClientConfig withReconnectDelay(long ms) {
        return new ClientConfig(reliability, keepaliveMs, silenceTimeoutMs, unansweredProbeMs, connectRetryMs,
                connectAttempts, ms, autoReconnect, dedupeWindow, handoverDrainMs, maxQueueDelayMs,
                outboxCapacity, outboxTtlMs);
    }

    /** Whether the application sheds late messages: {@code maxQueueDelayMs} set. */
    public boolean sheds() {
        return maxQueueDelayMs > 0;
    }

    /** How long a message waits for room in the congestion window before it is handed back. */
    public long queueLimitMs() {
        return sheds() ? maxQueueDelayMs : outboxTtlMs;
    }

    /** Sheds a message that waited {@code ms} for room in the congestion window (0: only past the outbox TTL). */
    public ClientConfig withMaxQueueDelay(long ms) {
        return new ClientConfig(reliability, keepaliveMs, silenceTimeoutMs, unansweredProbeMs, connectRetryMs,
                connectAttempts, reconnectDelayMs, autoReconnect, dedupeWindow, handoverDrainMs, ms,
                outboxCapacity, outboxTtlMs);
    }

    /** How soon a node notices a silent gateway and how many connect attempts it spends on one gateway. */
    public ClientConfig withLiveness(long keepalive, long silenceTimeout, int attemptsPerGateway) {
        return new ClientConfig(reliability, keepalive, silenceTimeout, unansweredProbeMs, connectRetryMs,
                attemptsPerGateway, reconnectDelayMs, autoReconnect, dedupeWindow, handoverDrainMs, maxQueueDelayMs,
                outboxCapacity, outboxTtlMs);
    }

    /** How many messages wait for a gateway at most, and for how long. */
    public ClientConfig withOutbox(int capacity, long ttlMs) {
        return new ClientConfig(reliability, keepaliveMs, silenceTimeoutMs, unansweredProbeMs, connectRetryMs,
                connectAttempts, reconnectDelayMs, autoReconnect, dedupeWindow, handoverDrainMs, maxQueueDelayMs,
                capacity, ttlMs);
    }
}
