package io.ckc.jobs.delivery;

import io.ckc.protocol.records.Unicast;

/**
 * A unicast the delivery job holds for its node until the node acknowledges it: in flight on the
 * session it was last sent to, or waiting (gateway null) for the node to connect.
 *
 * @param seq the order it reached the job in, per node: ties of creation time keep it
 * @param gatewayId the gateway of the session it was last sent on, or null while it waits
 * @param epoch that session's epoch
 */
public record PendingMessage(long seq, Unicast unicast, String gatewayId, long epoch) {

    public static PendingMessage waiting(long seq, Unicast unicast) {
        return new PendingMessage(seq, unicast, null, 0);
    }

    public PendingMessage sentTo(Route route) {
        return new PendingMessage(seq, unicast, route.gatewayId(), route.epoch());
    }

    /** Back to waiting: its session could not take it. */
    public PendingMessage unsent() {
        return waiting(seq, unicast);
    }

    public boolean inFlight() {
        return gatewayId != null;
    }

    /** Whether it was last sent on exactly this session. */
    public boolean sentOn(String gateway, long sessionEpoch) {
        return gateway.equals(gatewayId) && epoch == sessionEpoch;
    }
}
