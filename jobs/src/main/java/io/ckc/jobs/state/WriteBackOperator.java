package io.ckc.jobs.state;

import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs a keyed process function whose state goes through a {@link WriteBackState}: tells it each element's and timer's
 * key, and writes what changed to the state backend as each checkpoint or savepoint begins (before the backend's
 * snapshot) and whenever the heap holds state of more than {@link #MAX_KEYS_HELD} keys. Use it as
 * {@code keyedStream.transform(name, type, new WriteBackOperator<>(function))}; it keeps {@code KeyedProcessOperator}'s
 * state, so a savepoint of one restores into the other.
 */
public final class WriteBackOperator<K, IN, OUT> extends KeyedProcessOperator<K, IN, OUT> {

    /** Why: bounds the heap when keys come faster than checkpoints, as a million nodes each sending once would. */
    static final int MAX_KEYS_HELD = 100_000;

    private transient WriteBackState state;

    public <F extends KeyedProcessFunction<K, IN, OUT> & WriteBackState.Owner> WriteBackOperator(F function) {
        super(function);
    }

    @Override
    public void open() throws Exception {
        super.open();
        state = ((WriteBackState.Owner) userFunction).writeBack();
    }

    @Override
    public void processElement(StreamRecord<IN> element) throws Exception {
        state.at(getCurrentKey());
        super.processElement(element);
        if (state.keysHeld() > MAX_KEYS_HELD) {
            writeThrough();
        }
    }

    @Override
    public void onProcessingTime(InternalTimer<K, VoidNamespace> timer) throws Exception {
        state.at(timer.getKey());
        super.onProcessingTime(timer);
    }

    @Override
    public void onEventTime(InternalTimer<K, VoidNamespace> timer) throws Exception {
        state.at(timer.getKey());
        super.onEventTime(timer);
    }

    /** Called on every checkpoint and savepoint before the keyed state backend takes its snapshot. */
    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        writeThrough();
        super.snapshotState(context);
    }

    private void writeThrough() throws Exception {
        Object current = getCurrentKey();
        state.writeThrough(this::setCurrentKey);
        if (current != null) {
            setCurrentKey(current);
        }
    }
}
