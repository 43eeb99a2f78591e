package io.ckc.protocol.records;

/** A unicast a gateway could not hand to its mobile node, on {@code ckc.unsent} keyed by MN id. */
public record UnsentMessage(Unicast unicast, String gatewayId, Reason reason, long timestamp) {

    public enum Reason { NOT_CONNECTED, CONNECTION_BROKEN, SESSION_REPLACED }
}
