package io.ckc.protocol.records;

/**
 * A unicast a gateway could not hand to its mobile node, on {@code ckc.unsent} keyed by MN id.
 *
 * @param epoch the session epoch the message was meant for (the one it was routed or sent on)
 */
public record UnsentMessage(Unicast unicast, String gatewayId, long epoch, Reason reason, long timestamp) {

    /**
     * NOT_CONNECTED: no session for the node; CONNECTION_BROKEN: the session failed with the message
     * unacknowledged (or, with the mini-buffer, among the last two acknowledged); SESSION_REPLACED:
     * the node opened a newer session; EXPIRED: its deadline passed before the gateway could send it.
     */
    public enum Reason { NOT_CONNECTED, CONNECTION_BROKEN, SESSION_REPLACED, EXPIRED }
}
