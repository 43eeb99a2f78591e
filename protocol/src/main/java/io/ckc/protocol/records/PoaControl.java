package io.ckc.protocol.records;

/**
 * An operator's instruction to the PoA manager about one gateway, on the compacted
 * {@code ckc.poa.control} topic keyed by gateway id: drain it (it leaves the gateway list, then its
 * nodes are handed over to the others) or take it back.
 */
public record PoaControl(String gatewayId, boolean drain, long timestamp) {
}
