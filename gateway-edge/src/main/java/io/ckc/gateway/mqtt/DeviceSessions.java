package io.ckc.gateway.mqtt;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * MQTT sessions kept past their connection (MQTT 5 Session Expiry Interval, or MQTT 3.1.1 Clean Session 0): what a
 * device subscribed to, by client id, until its session expires, so that a device that connects again without a clean
 * start finds its subscriptions (CONNACK Session present 1) and its waiting deliveries arrive on them. The deliveries
 * themselves are not kept here: the delivery job holds every unicast a device has not acknowledged and routes it to
 * the device's next session. At most {@link #MAX_SESSIONS} are kept; past that the oldest is dropped. Shared by the
 * gateway's shards (a client id always lands on the same one).
 */
final class DeviceSessions {

    /** The longest a session is kept, whatever a device asks (CONNACK tells an MQTT 5 device so). */
    static final long MAX_EXPIRY_SECONDS = 24 * 3600;
    /** Sessions kept at most; the oldest goes first. */
    static final int MAX_SESSIONS = 200_000;

    private record Kept(Set<String> filters, long expiresAtMs) {
    }

    private final Map<String, Kept> kept = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Kept> eldest) {
            return size() > MAX_SESSIONS;
        }
    };

    /** Keeps a device's subscriptions for {@code expirySeconds}; a session of 0 seconds ends with its connection. */
    synchronized void keep(String clientId, Set<String> filters, long expirySeconds, long nowMs) {
        if (expirySeconds <= 0) {
            kept.remove(clientId);
            return;
        }
        kept.put(clientId, new Kept(Set.copyOf(filters), nowMs + Math.min(expirySeconds, MAX_EXPIRY_SECONDS) * 1000));
    }

    /** The subscriptions of a device's session that has not expired, taken out; null when there is none. */
    synchronized Set<String> resume(String clientId, long nowMs) {
        Kept session = kept.remove(clientId);
        return session == null || session.expiresAtMs <= nowMs ? null : session.filters;
    }

    /** A clean start: the device's earlier session is gone. */
    synchronized void forget(String clientId) {
        kept.remove(clientId);
    }

    /** Drops the sessions that have expired. */
    synchronized void sweep(long nowMs) {
        kept.values().removeIf(session -> session.expiresAtMs <= nowMs);
    }

    synchronized int size() {
        return kept.size();
    }
}
