package io.ckc.gateway.core;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Deadlines of many items that each move theirs forward while they live (a session heard from again): a timer wheel
 * of one-second slots that looks at an item when its deadline, as it was when last looked at, comes, not at every
 * sweep. An item whose deadline moved meanwhile goes to the slot of its new one; one whose deadline passed is due.
 * Why: a sweep of every session each second cost a gateway holding 300,000 idle nodes about a sixth of a core
 * (its session and DTLS sweeps, 27% of its samples), for nodes that time out after 30 s or more; here each is looked
 * at about once per timeout. Items that left (a closed session) are dropped when their slot comes. Confined to one
 * thread.
 *
 * @param <T> the items
 */
public final class Deadlines<T> {

    /** The wheel's slots, a second each: deadlines further than this come round again and wait another turn. */
    static final int SLOTS = 64;
    static final long SLOT_MS = 1_000;

    private final ToLongFunction<T> deadlineOf;
    private final Predicate<T> present;
    private final List<List<T>> slots = new ArrayList<>(SLOTS);
    /** The next slot to look at, as milliseconds / SLOT_MS; -1 until the first item or call. */
    private long nextTick = -1;
    /** Whether {@link #due} is looking at slot {@link #nextTick}, so that an item placed now goes to a later one. */
    private boolean looking;
    private int size;

    /**
     * @param deadlineOf an item's deadline now, in ms ({@link Long#MAX_VALUE}: none, looked at once per turn)
     * @param present    whether an item is still there: one that left is dropped, never due
     */
    public Deadlines(ToLongFunction<T> deadlineOf, Predicate<T> present) {
        this.deadlineOf = deadlineOf;
        this.present = present;
        for (int i = 0; i < SLOTS; i++) {
            slots.add(new ArrayList<>());
        }
    }

    /** Watches an item from now on, at its deadline now. */
    public void add(T item, long nowMs) {
        if (nextTick < 0) {
            nextTick = nowMs / SLOT_MS;
        }
        place(item, Math.max(nowMs, deadlineOf.applyAsLong(item)), nowMs);
        size++;
    }

    /** Items watched, those that left and are not yet dropped included. */
    public int size() {
        return size;
    }

    /**
     * The items whose deadline passed by {@code nowMs}, from the slots up to now; they are no longer watched. Items
     * looked at whose deadline moved are watched at the new one.
     */
    public List<T> due(long nowMs) {
        long tick = nowMs / SLOT_MS;
        if (nextTick < 0) {
            nextTick = tick;
        }
        if (tick - nextTick >= SLOTS) {
            nextTick = tick - SLOTS + 1; // a long gap: every slot once
        }
        List<T> due = new ArrayList<>(0);
        for (; nextTick <= tick; nextTick++) {
            int at = slotOf(nextTick);
            List<T> looked = slots.get(at);
            if (looked.isEmpty()) {
                continue;
            }
            slots.set(at, new ArrayList<>()); // what is placed while these are looked at goes to later slots
            looking = true;
            for (T item : looked) {
                if (!present.test(item)) {
                    size--;
                    continue;
                }
                long deadline = deadlineOf.applyAsLong(item);
                if (deadline <= nowMs) {
                    size--;
                    due.add(item);
                } else {
                    place(item, deadline, nowMs);
                }
            }
            looking = false;
        }
        return due;
    }

    private void place(T item, long deadlineMs, long nowMs) {
        // a deadline a turn or more away waits in the slot one turn ahead, and is looked at again there
        long tick = Math.min(deadlineMs / SLOT_MS, nowMs / SLOT_MS + SLOTS - 1);
        long earliest = looking ? nextTick + 1 : nextTick; // set by add or due before anything is placed
        tick = Math.max(tick, earliest); // a slot already looked at would wait a whole turn
        if (tick - earliest >= SLOTS) {
            tick = earliest + SLOTS - 1;
        }
        slots.get(slotOf(tick)).add(item);
    }

    private static int slotOf(long tick) {
        return (int) Math.floorMod(tick, (long) SLOTS);
    }
}
