package io.ckc.protocol.records;

import java.util.List;

/**
 * What a gateway writes on {@code ckc.delivered}: the receipts (DELIVERED, or DROPPED for a delivery it can never
 * make) of the acknowledgements one of its event loops read in one pass, one record for all of them instead of one
 * each. The delivery job splits it into its receipts before its keyed step. A single {@link Receipt} on that topic, as
 * gateways wrote before, reads as a batch of one.
 *
 * @param gatewayId the gateway that wrote it
 * @param receipts in the order the gateway settled them
 */
public record ReceiptBatch(String gatewayId, List<Receipt> receipts) {
}
