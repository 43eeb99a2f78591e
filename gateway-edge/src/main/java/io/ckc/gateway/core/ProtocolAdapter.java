package io.ckc.gateway.core;

import io.ckc.protocol.records.Endpoint;

/**
 * A protocol the gateway speaks to its nodes: it translates its wire format to calls on the core's
 * shards ({@link SessionShard}) and implements {@link NodeLink} for each of its sessions. The gateway
 * starts the adapters its configuration names and announces their endpoints.
 */
public interface ProtocolAdapter extends AutoCloseable {

    /** Where nodes reach this adapter, as the gateway announces it (HelloPoA, gateway lists, handovers). */
    Endpoint endpoint();

    /** Stops listening; the core has closed its sessions first. */
    @Override
    void close() throws InterruptedException;
}
