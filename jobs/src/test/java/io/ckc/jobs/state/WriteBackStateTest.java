package io.ckc.jobs.state;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class WriteBackStateTest {

    /** Backend writes (puts, removes, updates, clears) by every function instance of this test. */
    private static final AtomicInteger WRITES = new AtomicInteger();

    private KeyedOneInputStreamOperatorTestHarness<String, String, String> harness;

    @BeforeEach
    void setUp() throws Exception {
        WRITES.set(0);
        harness = newHarness();
        harness.open();
    }

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
    }

    @Test
    void anEntryWrittenAndTakenOutWithinAnIntervalNeverReachesTheBackend() throws Exception {
        for (int i = 0; i < 100; i++) {
            push("n1", "put m" + i);
            push("n1", "remove m" + i);
        }
        push("n1", "put last");
        restart();
        assertThat(WRITES.get()).as("one put of the entry still there, one update of the counter").isEqualTo(2);
        push("n1", "list");
        assertThat(harness.extractOutputValues()).containsExactly("n1 [last] count=202");
    }

    @Test
    void whatWasStoredAndIsTakenOutLaterIsRemovedFromTheBackend() throws Exception {
        push("n1", "put a");
        push("n1", "put b");
        push("n2", "put c");
        restart();
        push("n1", "remove a");
        push("n2", "remove c");
        restart();
        push("n1", "list");
        push("n2", "list");
        assertThat(harness.extractOutputValues()).containsExactly("n1 [b] count=4", "n2 [] count=3");
    }

    @Test
    void aMapTooLargeToLoadWholeIsReadThroughAndStaysRight() throws Exception {
        int many = WriteBackState.LOADED_WHOLE + 5;
        for (int i = 0; i < many; i++) {
            push("n1", "put m" + i);
        }
        restart();
        push("n1", "remove m0");
        push("n1", "put m0");
        push("n1", "remove m1");
        push("n1", "put extra");
        push("n1", "get m1");
        push("n1", "get m2");
        assertThat(harness.extractOutputValues()).containsExactly("n1 m1=null", "n1 m2=m2");
        restart();
        push("n1", "size");
        assertThat(harness.extractOutputValues()).containsExactly("n1 size=" + many);
    }

    @Test
    void keysKeepTheirOwnState() throws Exception {
        push("n1", "put a");
        push("n2", "put b");
        push("n1", "list");
        push("n2", "list");
        assertThat(harness.extractOutputValues()).containsExactly("n1 [a] count=2", "n2 [b] count=2");
    }

    private void restart() throws Exception {
        OperatorSubtaskState checkpoint = harness.snapshot(1, 0);
        harness.close();
        harness = newHarness();
        harness.setup();
        harness.initializeState(checkpoint);
        harness.open();
    }

    private void push(String key, String command) throws Exception {
        harness.processElement(new StreamRecord<>(key + " " + command));
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, String, String> newHarness() throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(new WriteBackOperator<>(new Commands()),
                line -> line.split(" ")[0], Types.STRING);
    }

    /** A map of strings and a count of commands per key, driven by "KEY put X", "remove X", "get X", "list", "size". */
    private static final class Commands extends KeyedProcessFunction<String, String, String>
            implements WriteBackState.Owner {
        private transient WriteBackState writeBack;
        private transient MapState<String, String> entries;
        private transient ValueState<Integer> count;

        @Override
        public void open(OpenContext context) {
            writeBack = new WriteBackState();
            entries = writeBack.map(new CountedMap(getRuntimeContext().getMapState(
                    new MapStateDescriptor<>("entries", String.class, String.class))));
            count = writeBack.value(new CountedValue(getRuntimeContext().getState(
                    new ValueStateDescriptor<>("count", Integer.class))));
        }

        @Override
        public WriteBackState writeBack() {
            return writeBack;
        }

        @Override
        public void processElement(String line, Context ctx, Collector<String> out) throws Exception {
            String[] words = line.split(" ");
            Integer before = count.value();
            count.update(before == null ? 1 : before + 1);
            switch (words[1]) {
                case "put" -> entries.put(words[2], words[2]);
                case "remove" -> entries.remove(words[2]);
                case "get" -> out.collect(words[0] + " " + words[2] + "=" + entries.get(words[2]));
                case "size" -> {
                    int size = 0;
                    for (String ignored : entries.keys()) {
                        size++;
                    }
                    out.collect(words[0] + " size=" + size);
                }
                default -> {
                    List<String> values = new ArrayList<>();
                    entries.values().forEach(values::add);
                    values.sort(null);
                    out.collect(words[0] + " " + values + " count=" + count.value());
                }
            }
        }
    }

    private record CountedValue(ValueState<Integer> state) implements ValueState<Integer> {
        @Override
        public Integer value() throws IOException {
            return state.value();
        }

        @Override
        public void update(Integer value) throws IOException {
            WRITES.incrementAndGet();
            state.update(value);
        }

        @Override
        public void clear() {
            WRITES.incrementAndGet();
            state.clear();
        }
    }

    private record CountedMap(MapState<String, String> state) implements MapState<String, String> {
        @Override
        public String get(String key) throws Exception {
            return state.get(key);
        }

        @Override
        public void put(String key, String value) throws Exception {
            WRITES.incrementAndGet();
            state.put(key, value);
        }

        @Override
        public void putAll(Map<String, String> map) throws Exception {
            WRITES.addAndGet(map.size());
            state.putAll(map);
        }

        @Override
        public void remove(String key) throws Exception {
            WRITES.incrementAndGet();
            state.remove(key);
        }

        @Override
        public boolean contains(String key) throws Exception {
            return state.contains(key);
        }

        @Override
        public Iterable<Map.Entry<String, String>> entries() throws Exception {
            return state.entries();
        }

        @Override
        public Iterable<String> keys() throws Exception {
            return state.keys();
        }

        @Override
        public Iterable<String> values() throws Exception {
            return state.values();
        }

        @Override
        public Iterator<Map.Entry<String, String>> iterator() throws Exception {
            return state.iterator();
        }

        @Override
        public boolean isEmpty() throws Exception {
            return state.isEmpty();
        }

        @Override
        public void clear() {
            WRITES.incrementAndGet();
            state.clear();
        }
    }
}
