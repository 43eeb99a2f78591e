package io.ckc.jobs.apps;

import com.dynatrace.hash4j.hashing.HashFunnel;
import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hashing;
import io.ckc.protocol.records.AppMessage;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFilterFunction;
import org.apache.flink.metrics.Counter;

import java.io.Serializable;
import java.time.Duration;
import java.util.Arrays;

/**
 * For applications whose answers carry ids derived from the request ({@link AppMessage#answer}): passes each node's
 * message on once while this subtask remembers its id, in memory of a fixed size: the ids of at least the last half of
 * {@code remember}, up to half of {@code maxIds} of them. It needs no keyBy: records keyed by node id stay in one
 * partition, so a repeat (a gateway that crashed after Kafka had a message, a node sending again to its next gateway
 * what a dead one never acknowledged: seconds later) reaches the subtask that saw the first. A repeat it no longer remembers (after a
 * restart, a rescale, or past the bounds) is answered again under the same id, and the node's SDK drops it.
 *
 * <p>What it saves against {@link DropRepeatedMessages} (exact, in keyed state that a restore keeps): a shuffle and
 * a state read and write per message. Why the echo uses it: at saturation those were a keyed step and two RocksDB calls
 * of each round trip (perf/README.md, the A/B table). The ids are kept as 128-bit hashes (XXH3, hash4j) in two
 * generations of flat {@code long} arrays, with no object per id: a map of strings held a few hundred thousand live
 * entries that every young collection of the TaskManager copied (perf/results/2026-12-05-0404-echo-ids).
 */
public final class DropRecentRepeats extends RichFilterFunction<AppMessage> {

    private static final Hasher128 HASHER = Hashing.xxh3_128();
    private static final HashFunnel<AppMessage> NODE_AND_MESSAGE =
            (message, sink) -> sink.putString(message.mnId()).putString(message.messageId());

    private final long rememberMs;
    private final int maxIds;
    private final Clock clock;
    private transient RecentIds seen;
    private transient Counter repeated;

    public DropRecentRepeats(Duration remember, int maxIds) {
        this(remember, maxIds, System::currentTimeMillis);
    }

    DropRecentRepeats(Duration remember, int maxIds, Clock clock) {
        if (remember.toMillis() < 2 || maxIds < 2) {
            throw new IllegalArgumentException("remember at least 2 ms and 2 ids");
        }
        this.rememberMs = remember.toMillis();
        this.maxIds = maxIds;
        this.clock = clock;
    }

    @Override
    public void open(OpenContext openContext) {
        seen = new RecentIds(maxIds / 2, rememberMs / 2);
        repeated = getRuntimeContext().getMetricGroup().counter("repeatedMessagesDropped");
    }

    @Override
    public boolean filter(AppMessage message) {
        HashValue128 id = HASHER.hashTo128Bits(message, NODE_AND_MESSAGE);
        if (!seen.add(id.getMostSignificantBits(), id.getLeastSignificantBits(), clock.nowMs())) {
            repeated.inc();
            return false;
        }
        return true;
    }

    /** The wall clock, or a test's; shipped with the function to its TaskManager. */
    interface Clock extends Serializable {
        long nowMs();
    }

    /**
     * Two generations of ids, each an open-addressed table of (high, low) pairs at most half full; a new generation
     * starts when the current one holds {@code perGeneration} ids or began {@code generationMs} ago, and the one
     * before it is forgotten then.
     */
    static final class RecentIds {
        private final int perGeneration;
        private final long generationMs;
        private final int mask;
        private long[] current;
        private long[] previous;
        private int currentCount;
        private long currentSince;

        RecentIds(int perGeneration, long generationMs) {
            this.perGeneration = perGeneration;
            this.generationMs = generationMs;
            int slots = Integer.highestOneBit(Math.max(1, perGeneration - 1)) << 2;
            this.mask = slots - 1;
            this.current = new long[2 * slots];
            this.previous = new long[2 * slots];
        }

        /** Remembers the id; false if it was remembered already. */
        boolean add(long high, long low, long now) {
            if (high == 0 && low == 0) {
                low = 1; // (0, 0) marks an empty slot
            }
            if (currentCount > 0 && now - currentSince >= generationMs) {
                turn(now - currentSince >= 2 * generationMs);
            }
            int slot = slot(current, high, low);
            if (!empty(current, slot) || !empty(previous, slot(previous, high, low))) {
                return false;
            }
            if (currentCount >= perGeneration) {
                turn(false);
                slot = slot(current, high, low);
            }
            current[slot] = high;
            current[slot + 1] = low;
            if (currentCount++ == 0) {
                currentSince = now;
            }
            return true;
        }

        /** A new generation starts; the current one becomes the previous, or, {@code stale}, is forgotten too. */
        private void turn(boolean stale) {
            long[] reused = previous;
            previous = stale ? clear(current) : current;
            current = clear(reused);
            currentCount = 0;
        }

        private static boolean empty(long[] table, int slot) {
            return table[slot] == 0 && table[slot + 1] == 0;
        }

        /** The pair's slot, or the empty one where it would go (linear probing). */
        private int slot(long[] table, long high, long low) {
            int i = (int) (low ^ (low >>> 32)) & mask;
            while (true) {
                int at = 2 * i;
                if ((table[at] == high && table[at + 1] == low) || empty(table, at)) {
                    return at;
                }
                i = (i + 1) & mask;
            }
        }

        private static long[] clear(long[] table) {
            Arrays.fill(table, 0);
            return table;
        }
    }
}
