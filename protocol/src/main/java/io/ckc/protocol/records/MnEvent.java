package io.ckc.protocol.records;

/**
 * A mobile node connected to or disconnected from a gateway, on {@code ckc.mn.events} keyed by MN id.
 * The epoch orders sessions of one node: a disconnect counts only for the (gateway, epoch) it names.
 */
public record MnEvent(Type type, String mnId, String gatewayId, long epoch, long timestamp) {

    public enum Type { CONNECTED, DISCONNECTED }

    public static MnEvent connected(String mnId, String gatewayId, long epoch, long timestamp) {
        return new MnEvent(Type.CONNECTED, mnId, gatewayId, epoch, timestamp);
    }

    public static MnEvent disconnected(String mnId, String gatewayId, long epoch, long timestamp) {
        return new MnEvent(Type.DISCONNECTED, mnId, gatewayId, epoch, timestamp);
    }
}
