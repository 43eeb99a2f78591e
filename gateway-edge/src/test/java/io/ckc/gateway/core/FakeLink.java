package io.ckc.gateway.core;

import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.records.Unicast;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/** A protocol adapter's link that records what the core asked of it, and on which threads. */
public final class FakeLink implements NodeLink {

    public final Session session;
    public final List<String> calls = new ArrayList<>();
    public final List<UUID> delivered = new ArrayList<>();
    /** The deadline each delivery was handed over with, in order. */
    public final List<Long> deadlines = new ArrayList<>();
    public final List<byte[]> payloads = new ArrayList<>();
    public final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    public boolean closed;

    public FakeLink(Session session) {
        this.session = session;
    }

    private void call(String what) {
        threads.add(Thread.currentThread());
        calls.add(what);
    }

    @Override public void accepted(String gatewayId, int maxPayloadBytes) { call("accepted " + gatewayId); }
    @Override public void acknowledge(int ref) { call("ack " + ref); }
    @Override public void reject(int ref, Refusal refusal, String message) { call("reject " + ref + " " + refusal); }
    @Override public boolean handover(GatewayEndpoints target) { call("handover " + target.gatewayId()); return true; }
    @Override public void gatewayList(List<GatewayEndpoints> gateways) { call("list " + gateways.size()); }
    @Override public void ping(long timestamp) { call("ping"); }

    @Override
    public void deliver(UUID deliveryId, Unicast unicast, long expiresAt) {
        call("deliver " + deliveryId);
        delivered.add(deliveryId);
        deadlines.add(expiresAt);
        payloads.add(unicast.payload());
    }

    /** The node has acknowledged none of what it was sent: all of it goes back, in order. */
    @Override
    public List<UUID> close() {
        call("close");
        closed = true;
        return List.copyOf(delivered);
    }
}
