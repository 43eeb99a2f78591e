package io.ckc.protocol.records;

/**
 * A unicast a gateway could not hand to its mobile node, on {@code ckc.unsent} keyed by MN id.
 *
 * @param epoch the session epoch the message was meant for (the one it was routed or sent on)
 * @param mayHaveArrived the gateway sent it to the node, which never acknowledged it: it may have arrived all the
 *                       same (its acknowledgement lost), so past its deadline the node is asked, not the message
 *                       expired; false (and absent in older records): it never left the gateway
 * @param routed the delivery job routed it and holds it until it is settled, so one the job no longer holds was
 *               settled already (delivered, expired or dropped) and is not taken in again; false (and absent in
 *               older records): a copy the job did not route (a broadcast's, or the mini-buffer's), which it takes in
 */
public record UnsentMessage(Unicast unicast, String gatewayId, long epoch, Reason reason, long timestamp,
                            boolean mayHaveArrived, boolean routed) {

    public UnsentMessage(Unicast unicast, String gatewayId, long epoch, Reason reason, long timestamp) {
        this(unicast, gatewayId, epoch, reason, timestamp, false);
    }

    public UnsentMessage(Unicast unicast, String gatewayId, long epoch, Reason reason, long timestamp,
                         boolean mayHaveArrived) {
        this(unicast, gatewayId, epoch, reason, timestamp, mayHaveArrived, false);
    }

    /**
     * NOT_CONNECTED: no session for the node; CONNECTION_BROKEN: the session failed with the message
     * unacknowledged (or, with the mini-buffer, among the last two acknowledged); SESSION_REPLACED:
     * the node opened a newer session; EXPIRED: its deadline passed before the gateway could send it.
     */
    public enum Reason { NOT_CONNECTED, CONNECTION_BROKEN, SESSION_REPLACED, EXPIRED }
}
