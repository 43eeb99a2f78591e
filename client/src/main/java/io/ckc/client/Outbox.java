package io.ckc.client;

import io.ckc.protocol.frame.Body;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * What a node's application sent that no gateway holds: sent while no session was open, or left
 * unacknowledged by a session that ended. It waits here, in order, for the next session, whichever
 * gateway that is on. Bounded: a message that finds it full, or waits past its TTL, goes back to the
 * application as unsent; nothing else does. A message put back from an ended session counts its TTL
 * from then.
 */
final class Outbox {

    private record Waiting(Body.Outgoing message, long sinceMs) {
    }

    private final int capacity;
    private final long ttlMs;
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();

    Outbox(int capacity, long ttlMs) {
        this.capacity = capacity;
        this.ttlMs = ttlMs;
    }

    /** Keeps a new message at the back; false when the outbox is full. */
    boolean offer(Body.Outgoing message, long nowMs) {
        if (waiting.size() >= capacity) {
            return false;
        }
        waiting.addLast(new Waiting(message, nowMs));
        return true;
    }

    /** Puts what an ended session left unacknowledged in front, in its order: it was sent before the rest. */
    void putBack(List<Body.Outgoing> messages, long nowMs) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            waiting.addFirst(new Waiting(messages.get(i), nowMs));
        }
    }

    /** Takes every message out, in order. */
    List<Body.Outgoing> takeAll() {
        List<Body.Outgoing> all = new ArrayList<>(waiting.size());
        waiting.forEach(w -> all.add(w.message()));
        waiting.clear();
        return all;
    }

    /** Takes out the messages that waited their TTL out. */
    List<Body.Outgoing> expire(long nowMs) {
        List<Body.Outgoing> expired = new ArrayList<>(0);
        for (Iterator<Waiting> it = waiting.iterator(); it.hasNext(); ) {
            Waiting w = it.next();
            if (nowMs - w.sinceMs() >= ttlMs) {
                expired.add(w.message());
                it.remove();
            }
        }
        return expired;
    }

    boolean isEmpty() {
        return waiting.isEmpty();
    }

    int size() {
        return waiting.size();
    }
}
