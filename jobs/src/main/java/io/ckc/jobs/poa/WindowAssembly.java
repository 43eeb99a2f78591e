package io.ckc.jobs.poa;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The parts of one gateway's ping window received so far, but for their nodes (kept per part beside it). A Flink POJO:
 * it lives in keyed state.
 */
public class WindowAssembly {

    public long pingSentAtMicros;
    public long windowMs;
    public int parts;
    public int pinged;
    /** The connected nodes of the parts so far, listed or counted. */
    public int connected;
    public Set<Integer> partsSeen = new HashSet<>();
    public List<Long> latenciesMicros = new ArrayList<>();

    public WindowAssembly() {
    }

    public WindowAssembly(long pingSentAtMicros, long windowMs, int parts) {
        this.pingSentAtMicros = pingSentAtMicros;
        this.windowMs = windowMs;
        this.parts = parts;
    }

    public boolean complete() {
        return partsSeen.size() >= parts;
    }

    public long[] latencies() {
        return latenciesMicros.stream().mapToLong(Long::longValue).toArray();
    }
}
