package io.ckc.jobs.poa;

import io.ckc.protocol.records.GatewayCommand;

/** A command for one gateway's own topic, with its record key (a node id, or the gateway id for settings). */
public record GatewayOrder(String gatewayId, String key, GatewayCommand command) {
}
