package io.ckc.protocol.records;


/** The context a mobile node reported with a message, on {@code ckc.context} keyed by MN id. */
public record ContextReport(String mnId, String gatewayId, long timestamp, Context context) {
}
