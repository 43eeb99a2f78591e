package io.ckc.gateway.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * A shard's sessions by node, kept in an array as well, so that a ping window draws its sample of them without
 * walking them all. Confined to the shard's event loop.
 * <p>Why: a gateway of a million nodes drew its windows' samples of 1,000 by a walk over every session with a coin
 * per session, every 5 s, about a tenth of its idle CPU (JFR, 2026-11-28). The draw is now a partial Fisher-Yates
 * shuffle of the array: as many steps as sessions drawn.
 */
final class ShardSessions {

    private final Map<UUID, Session> byNode = new HashMap<>();
    private Session[] slots = new Session[16];
    private int size;

    Session get(UUID mnId) {
        return byNode.get(mnId);
    }

    /** Adds the session, in place of any other of its node (whose caller closed it first). */
    void put(Session session) {
        Session previous = byNode.put(session.mnId, session);
        if (previous != null) {
            removeSlot(previous);
        }
        if (size == slots.length) {
            slots = Arrays.copyOf(slots, size * 2);
        }
        session.slot = size;
        slots[size++] = session;
    }

    /** Removes the session if it is its node's here now; false if it is not. */
    boolean remove(Session session) {
        if (!byNode.remove(session.mnId, session)) {
            return false;
        }
        removeSlot(session);
        return true;
    }

    /** The sessions, for a walk that changes none of them (copy first to close some). */
    Collection<Session> values() {
        return byNode.values();
    }

    int size() {
        return size;
    }

    /**
     * Up to {@code count} sessions that {@code eligible} accepts, drawn uniformly at random without replacement, in
     * as many steps as sessions looked at: those it refuses are passed over, and the draw goes on until it has
     * {@code count} or has looked at all.
     */
    List<Session> sample(int count, Predicate<Session> eligible, RandomGenerator random) {
        List<Session> drawn = new ArrayList<>(Math.min(count, size));
        for (int i = 0; i < size && drawn.size() < count; i++) {
            swap(i, i + random.nextInt(size - i));
            if (eligible.test(slots[i])) {
                drawn.add(slots[i]);
            }
        }
        return drawn;
    }

    private void removeSlot(Session session) {
        int slot = session.slot;
        size--;
        if (slot != size) {
            slots[slot] = slots[size];
            slots[slot].slot = slot;
        }
        slots[size] = null;
        if (slots.length > 16 && size < slots.length / 4) {
            slots = Arrays.copyOf(slots, slots.length / 2);
        }
    }

    private void swap(int i, int j) {
        Session at = slots[i];
        slots[i] = slots[j];
        slots[j] = at;
        slots[i].slot = i;
        slots[j].slot = j;
    }
}
