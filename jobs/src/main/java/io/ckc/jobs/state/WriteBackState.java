package io.ckc.jobs.state;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

import java.io.IOException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Keyed state held on the heap between two checkpoints and written to the state backend just before each one
 * ({@link WriteBackOperator}): what is written and taken out again within one checkpoint interval, as a message held
 * until its node's acknowledgement comes back milliseconds later, never reaches RocksDB; what is still there at the
 * checkpoint is written once. A checkpoint holds exactly what the function's state was at its barrier, so a restore
 * and a rescale see what they would have seen without this class.
 *
 * <p>Wrap a function's state handles in {@link #value} and {@link #map} in its {@code open} and use them as Flink's.
 * Values must be immutable (records): a value read is the instance written, not a copy. Map values must not be null.
 * Each key's map is loaded whole on its first use in an interval when it holds at most {@link #LOADED_WHOLE} entries,
 * so that taking out an entry written in the same interval costs nothing; a larger one is read through entry by entry.
 */
public final class WriteBackState {

    /** A function whose keyed state goes through a {@link WriteBackState}, run by a {@link WriteBackOperator}. */
    public interface Owner {
        WriteBackState writeBack();
    }

    /** A key's map with at most this many entries is read whole on its first use in an interval. */
    static final int LOADED_WHOLE = 32;

    private final List<Held> held = new ArrayList<>();
    private final Set<Object> changedKeys = new HashSet<>();
    private Object key;

    public <T> ValueState<T> value(ValueState<T> backing) {
        HeldValue<T> value = new HeldValue<>(backing);
        held.add(value);
        return value;
    }

    public <K, V> MapState<K, V> map(MapState<K, V> backing) {
        HeldMap<K, V> map = new HeldMap<>(backing);
        held.add(map);
        return map;
    }

    /** The key that the next reads and writes are for: the operator sets it before each element and timer. */
    void at(Object currentKey) {
        key = currentKey;
    }

    /** How many keys the heap holds state of, at most. */
    int keysHeld() {
        int most = 0;
        for (Held state : held) {
            most = Math.max(most, state.keysHeld());
        }
        return most;
    }

    /**
     * Writes what changed to the backend, key by key ({@code setKey} makes a key the backend's current one), and
     * forgets everything held.
     */
    void writeThrough(Consumer<Object> setKey) throws Exception {
        for (Object changed : changedKeys) {
            setKey.accept(changed);
            for (Held state : held) {
                state.writeThrough(changed);
            }
        }
        changedKeys.clear();
        for (Held state : held) {
            state.forget();
        }
    }

    private Object key() {
        if (key == null) {
            throw new IllegalStateException("keyed state used outside an element or timer of a WriteBackOperator");
        }
        return key;
    }

    private interface Held {
        int keysHeld();

        void writeThrough(Object key) throws Exception;

        void forget();
    }

    private final class HeldValue<T> implements ValueState<T>, Held {
        private final ValueState<T> backing;
        private final Map<Object, Slot<T>> slots = new HashMap<>();

        HeldValue(ValueState<T> backing) {
            this.backing = backing;
        }

        @Override
        public T value() throws IOException {
            Slot<T> slot = slots.get(key());
            if (slot == null) {
                slot = new Slot<>(backing.value());
                slots.put(key, slot);
            }
            return slot.value;
        }

        @Override
        public void update(T value) {
            Slot<T> slot = slots.computeIfAbsent(key(), k -> new Slot<>(null));
            slot.value = value;
            slot.changed = true;
            changedKeys.add(key);
        }

        @Override
        public void clear() {
            update(null);
        }

        @Override
        public int keysHeld() {
            return slots.size();
        }

        @Override
        public void writeThrough(Object changed) throws Exception {
            Slot<T> slot = slots.get(changed);
            if (slot != null && slot.changed) {
                if (slot.value == null) {
                    backing.clear();
                } else {
                    backing.update(slot.value);
                }
            }
        }

        @Override
        public void forget() {
            slots.clear();
        }
    }

    private static final class Slot<T> {
        T value;
        boolean changed;

        Slot(T value) {
            this.value = value;
        }
    }

    private final class HeldMap<K, V> implements MapState<K, V>, Held {
        private final MapState<K, V> backing;
        private final Map<Object, Entries<K, V>> byKey = new HashMap<>();

        HeldMap(MapState<K, V> backing) {
            this.backing = backing;
        }

        /** This key's entries, loaded whole if it has few. */
        private Entries<K, V> entriesOfKey() throws Exception {
            Entries<K, V> entries = byKey.get(key());
            if (entries == null) {
                entries = new Entries<>();
                Iterator<Map.Entry<K, V>> stored = backing.iterator();
                int read = 0;
                while (read < LOADED_WHOLE && stored.hasNext()) {
                    Map.Entry<K, V> entry = stored.next();
                    entries.known.put(entry.getKey(), entry.getValue());
                    entries.stored.add(entry.getKey());
                    read++;
                }
                entries.whole = !stored.hasNext();
                if (!entries.whole) { // Why: read through entry by entry; what was read is known all the same.
                    entries.stored.clear();
                }
                byKey.put(key, entries);
            }
            return entries;
        }

        @Override
        public V get(K mapKey) throws Exception {
            Entries<K, V> entries = entriesOfKey();
            if (entries.known.containsKey(mapKey)) {
                return entries.known.get(mapKey);
            }
            if (entries.whole) {
                return null;
            }
            V value = backing.get(mapKey);
            entries.known.put(mapKey, value);
            return value;
        }

        @Override
        public void put(K mapKey, V value) throws Exception {
            Objects.requireNonNull(value, "a held map's value");
            Entries<K, V> entries = entriesOfKey();
            entries.known.put(mapKey, value);
            entries.changed.add(mapKey);
            changedKeys.add(key);
        }

        @Override
        public void putAll(Map<K, V> map) throws Exception {
            for (Map.Entry<K, V> entry : map.entrySet()) {
                put(entry.getKey(), entry.getValue());
            }
        }

        @Override
        public void remove(K mapKey) throws Exception {
            Entries<K, V> entries = entriesOfKey();
            if (entries.whole && !entries.stored.contains(mapKey)) {
                entries.known.remove(mapKey); // written and taken out within the interval: the backend never hears
                entries.changed.remove(mapKey);
                return;
            }
            entries.known.put(mapKey, null);
            entries.changed.add(mapKey);
            changedKeys.add(key);
        }

        @Override
        public boolean contains(K mapKey) throws Exception {
            return get(mapKey) != null;
        }

        @Override
        public Iterable<Map.Entry<K, V>> entries() throws Exception {
            Entries<K, V> entries = entriesOfKey();
            List<Map.Entry<K, V>> all = new ArrayList<>();
            if (!entries.whole) {
                for (Map.Entry<K, V> stored : backing.entries()) {
                    if (!entries.known.containsKey(stored.getKey())) {
                        all.add(new AbstractMap.SimpleImmutableEntry<>(stored.getKey(), stored.getValue()));
                    }
                }
            }
            for (Map.Entry<K, V> known : entries.known.entrySet()) {
                if (known.getValue() != null) {
                    all.add(new AbstractMap.SimpleImmutableEntry<>(known.getKey(), known.getValue()));
                }
            }
            return all;
        }

        @Override
        public Iterable<K> keys() throws Exception {
            List<K> keys = new ArrayList<>();
            entries().forEach(entry -> keys.add(entry.getKey()));
            return keys;
        }

        @Override
        public Iterable<V> values() throws Exception {
            List<V> values = new ArrayList<>();
            entries().forEach(entry -> values.add(entry.getValue()));
            return values;
        }

        @Override
        public Iterator<Map.Entry<K, V>> iterator() throws Exception {
            return entries().iterator();
        }

        @Override
        public boolean isEmpty() throws Exception {
            return !entries().iterator().hasNext();
        }

        @Override
        public void clear() {
            try {
                for (K mapKey : keys()) {
                    remove(mapKey);
                }
            } catch (Exception e) {
                throw new IllegalStateException("clearing a held map", e);
            }
        }

        @Override
        public int keysHeld() {
            return byKey.size();
        }

        @Override
        public void writeThrough(Object changed) throws Exception {
            Entries<K, V> entries = byKey.get(changed);
            if (entries == null) {
                return;
            }
            for (K mapKey : entries.changed) {
                V value = entries.known.get(mapKey);
                if (value == null) {
                    backing.remove(mapKey);
                } else {
                    backing.put(mapKey, value);
                }
            }
        }

        @Override
        public void forget() {
            byKey.clear();
        }
    }

    /** One key's map entries as the function sees them: a null value is one taken out. */
    private static final class Entries<K, V> {
        final Map<K, V> known = new HashMap<>();
        final Set<K> changed = new HashSet<>();
        /** The keys the backend held when the map was loaded whole. */
        final Set<K> stored = new HashSet<>();
        /** Whether {@link #known} holds every entry (the map was loaded whole). */
        boolean whole;
    }
}
