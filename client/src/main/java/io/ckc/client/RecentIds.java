package io.ckc.client;

import java.util.LinkedHashSet;
import java.util.UUID;

/**
 * The ids of the messages a node received lately, so that a message delivered twice (a gateway that failed
 * over, a replay after a restart) reaches the application once. Bounded: the oldest id is forgotten first.
 */
final class RecentIds {

    private final int window;
    private LinkedHashSet<UUID> ids;

    RecentIds(int window) {
        this.window = window;
    }

    /** Whether {@code id} is among the last {@code window} ids; remembers nothing. */
    boolean seen(UUID id) {
        return ids != null && ids.contains(id);
    }

    /** Whether {@code id} was not seen among the last {@code window} ids; remembers it. */
    boolean firstTime(UUID id) {
        if (ids == null) {
            ids = new LinkedHashSet<>(); // most nodes of a fleet never receive anything: no set for them
        }
        if (!ids.add(id)) {
            return false;
        }
        if (ids.size() > window) {
            ids.remove(ids.iterator().next());
        }
        return true;
    }
}
