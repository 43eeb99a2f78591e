package io.ckc.protocol.records;

import java.util.LinkedHashSet;

/**
 * The ids of the messages a receiver took lately, so that a message delivered twice (a gateway that failed over, a
 * replay after a restart, two delivery jobs during a blue/green rescale) reaches it once: a node's SDK keeps one, and
 * so does an MQTT device's session at its gateway, since stock MQTT clients do not drop repeats. Bounded: the oldest
 * id is forgotten first; nothing is allocated until the first id.
 *
 * @param <T> the ids' type
 */
public final class RecentIds<T> {

    private final int window;
    private LinkedHashSet<T> ids;

    public RecentIds(int window) {
        this.window = window;
    }

    /** Whether {@code id} is among the last {@code window} ids; remembers nothing. */
    public boolean seen(T id) {
        return ids != null && ids.contains(id);
    }

    /** Whether {@code id} was not seen among the last {@code window} ids; remembers it. */
    public boolean firstTime(T id) {
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
