package io.ckc.protocol.records;

/**
 * A mobile node connected to or disconnected from a gateway, on {@code ckc.mn.events} keyed by MN id.
 * The epoch orders sessions of one node: a disconnect counts only for the (gateway, epoch) it names.
 * {@code timestamp} is the writing gateway's clock.
 *
 * <p>{@link Type#GATEWAY_LOST} comes from the PoA manager, for each node of a gateway that stopped
 * reporting: the node's session there may be over, unless it opened after {@code timestamp}, the gateway's
 * last sign of life on the gateway's own clock (a gateway restarted under the same id opens new ones).
 * It names no epoch (0): the PoA manager does not know them.
 */
public record MnEvent(Type type, String mnId, String gatewayId, long epoch, long timestamp) {

    public enum Type { CONNECTED, DISCONNECTED, GATEWAY_LOST }

    public static MnEvent connected(String mnId, String gatewayId, long epoch, long timestamp) {
        return new MnEvent(Type.CONNECTED, mnId, gatewayId, epoch, timestamp);
    }

    public static MnEvent disconnected(String mnId, String gatewayId, long epoch, long timestamp) {
        return new MnEvent(Type.DISCONNECTED, mnId, gatewayId, epoch, timestamp);
    }

    public static MnEvent gatewayLost(String mnId, String gatewayId, long lastSignOfLife) {
        return new MnEvent(Type.GATEWAY_LOST, mnId, gatewayId, 0, lastSignOfLife);
    }
}
