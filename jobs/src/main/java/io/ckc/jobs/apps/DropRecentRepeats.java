package io.ckc.jobs.apps;

import io.ckc.protocol.records.AppMessage;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFilterFunction;
import org.apache.flink.metrics.Counter;

import java.io.Serializable;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * For applications whose answers carry ids derived from the request ({@link AppMessage#answer}): passes each node's
 * message on once while it is among the ids this subtask saw in the last {@code remember}, at most {@code maxIds} of
 * them, in memory. It needs no keyBy: records keyed by node id stay in one partition, so a repeat (a gateway that
 * crashed after Kafka had a message, a node sending again to its next gateway what a dead one never acknowledged:
 * seconds later) reaches the subtask that saw the first. A repeat it no longer remembers (after a restart, a rescale,
 * or past either bound) is answered again under the same id, and the node's SDK drops it.
 *
 * <p>What it saves against {@link DropRepeatedMessages} (exact, in keyed state that a restore keeps): a shuffle and
 * a state read and write per message. Why the echo uses it: at saturation those were a keyed step and two RocksDB calls
 * of each round trip, and the node drops what it lets through (perf/README.md, "Where CKC's throughput went").
 */
public final class DropRecentRepeats extends RichFilterFunction<AppMessage> {

    private final long rememberMs;
    private final int maxIds;
    private final Clock clock;
    private transient RecentIds seen;
    private transient Counter repeated;

    public DropRecentRepeats(Duration remember, int maxIds) {
        this(remember, maxIds, System::currentTimeMillis);
    }

    DropRecentRepeats(Duration remember, int maxIds, Clock clock) {
        if (remember.isNegative() || remember.isZero() || maxIds < 1) {
            throw new IllegalArgumentException("remember a positive time and at least one id");
        }
        this.rememberMs = remember.toMillis();
        this.maxIds = maxIds;
        this.clock = clock;
    }

    @Override
    public void open(OpenContext openContext) {
        seen = new RecentIds(maxIds);
        repeated = getRuntimeContext().getMetricGroup().counter("repeatedMessagesDropped");
    }

    @Override
    public boolean filter(AppMessage message) {
        long now = clock.nowMs();
        seen.forgetOlderThan(now - rememberMs);
        if (seen.putIfAbsent(message.mnId() + '/' + message.messageId(), now) != null) {
            repeated.inc();
            return false;
        }
        return true;
    }

    /** The wall clock, or a test's; shipped with the function to its TaskManager. */
    interface Clock extends Serializable {
        long nowMs();
    }

    /** Ids in the order they were first seen, with when; the eldest go first past the size bound. */
    private static final class RecentIds extends LinkedHashMap<String, Long> {
        private final int maxIds;

        RecentIds(int maxIds) {
            super(Math.min(maxIds, 1 << 16), 0.75f, false);
            this.maxIds = maxIds;
        }

        void forgetOlderThan(long cutoff) {
            Iterator<Map.Entry<String, Long>> eldest = entrySet().iterator();
            while (eldest.hasNext() && eldest.next().getValue() < cutoff) {
                eldest.remove();
            }
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > maxIds;
        }
    }
}
