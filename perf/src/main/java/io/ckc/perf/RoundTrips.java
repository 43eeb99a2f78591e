package io.ckc.perf;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.BitSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What a run measures of its echoes, whatever carried them (the CKC stack or the bare-Kafka
 * baseline): messages sent, echoes back (each (node, seq) counted once, repeats as duplicates),
 * round-trip times in microseconds (the whole run, the interval since the last look, and the mean
 * by message sequence number, as the paper's Figures 9-14 plot it). Thread-safe.
 */
final class RoundTrips {

    private static final long MAX_RTT_MICROS = TimeUnit.MINUTES.toMicros(10);

    final AtomicLong sent = new AtomicLong();
    final AtomicLong delivered = new AtomicLong();
    final AtomicLong duplicates = new AtomicLong();
    /** Of {@link #duplicates}, those that reached MQTT devices (nodes numbered from {@link #devicesFrom} on). */
    final AtomicLong deviceDuplicates = new AtomicLong();
    /** The first node number that is an MQTT device; beyond the last node while there are none. */
    private volatile int devicesFrom = Integer.MAX_VALUE;
    /**
     * Echoes of one message under a second message id: the application answered it twice (it read the
     * node's message twice and did not drop the repeat). {@link #duplicates} are echoes under the same id
     * that passed the node's own dedupe.
     */
    final AtomicLong answeredTwice = new AtomicLong();
    /** Echoes of a node that came after an echo of a later message of the same node. */
    final AtomicLong reordered = new AtomicLong();
    /**
     * The first reorderings and the first repeats, one line each with the wall-clock time, to tell which fault made
     * them.
     */
    private final java.util.Queue<String> anomalies = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private static final int ANOMALIES_KEPT = 200;
    /** Messages of the warm-up before a run's measured ones (see {@link #warmUpSeq}): counted, never measured. */
    final AtomicLong warmUpSent = new AtomicLong();
    final AtomicLong warmUpDelivered = new AtomicLong();
    private final BitSet[] received;
    private final int[] highestSeq;
    /** Per node, by seq, the id of the first echo (0: none known); only for echoes that carry one. */
    private final long[][] echoIds;
    private final Recorder interval = new Recorder(MAX_RTT_MICROS, 3);
    private final Histogram total = new Histogram(MAX_RTT_MICROS, 3);
    private final java.util.List<Watch> watches = new java.util.concurrent.CopyOnWriteArrayList<>();
    private double[] sumBySeq = new double[64];
    private long[] countBySeq = new long[64];

    RoundTrips(int nodes) {
        received = new BitSet[nodes];
        highestSeq = new int[nodes];
        echoIds = new long[nodes][];
        for (int i = 0; i < nodes; i++) {
            received[i] = new BitSet();
            highestSeq[i] = -1;
        }
    }

    /** Nodes numbered {@code first} and above are MQTT devices (their duplicates count apart). */
    void devicesFrom(int first) {
        devicesFrom = Math.min(devicesFrom, first);
    }

    /** The sequence number of a node's {@code i}-th warm-up message: negative, so its echo is told apart. */
    static int warmUpSeq(int i) {
        return -1 - i;
    }

    /** An echo of the {@code seq}-th message of {@code node}; false if it was a duplicate. */
    boolean arrived(int node, int seq, long rttMicros) {
        return arrived(node, seq, rttMicros, null);
    }

    /**
     * An echo that came as message {@code echoId} (null: the path gives none): a repeat under the same id
     * counts in {@link #duplicates}, under another id in {@link #answeredTwice}.
     */
    boolean arrived(int node, int seq, long rttMicros, java.util.UUID echoId) {
        if (seq < 0) {
            warmUpDelivered.incrementAndGet();
            return true;
        }
        long id = echoId == null ? 0 : echoId.getMostSignificantBits() ^ echoId.getLeastSignificantBits() | 1;
        BitSet seen = received[node];
        synchronized (seen) {
            if (seen.get(seq)) {
                long first = echoIdOf(node, seq);
                boolean twice = id != 0 && first != 0 && first != id;
                long count = twice ? answeredTwice.incrementAndGet() : duplicates.incrementAndGet();
                if (!twice && node >= devicesFrom) {
                    deviceDuplicates.incrementAndGet();
                }
                if (count <= ANOMALIES_KEPT) {
                    anomalies.add(String.format(java.util.Locale.ROOT, "%s at=%tT.%<tL node=%d seq=%d id=%x first_id=%x "
                            + "rtt_ms=%d", twice ? "answered_twice" : "repeated", System.currentTimeMillis(), node, seq,
                            id, first, rttMicros / 1000));
                }
                return false;
            }
            seen.set(seq);
            if (id != 0) {
                rememberEchoId(node, seq, id);
            }
            if (seq < highestSeq[node]) {
                if (reordered.incrementAndGet() <= ANOMALIES_KEPT) {
                    anomalies.add(String.format(java.util.Locale.ROOT, "reordered at=%tT.%<tL node=%d seq=%d after_seq=%d "
                            + "rtt_ms=%d", System.currentTimeMillis(), node, seq, highestSeq[node], rttMicros / 1000));
                }
            } else {
                highestSeq[node] = seq;
            }
        }
        delivered.incrementAndGet();
        record(seq, rttMicros);
        if (!watches.isEmpty()) {
            long sentAt = System.nanoTime() - TimeUnit.MICROSECONDS.toNanos(rttMicros);
            for (Watch watch : watches) {
                watch.arrived(node, sentAt, rttMicros);
            }
        }
        return true;
    }

    /**
     * Starts keeping the round trips of the messages that {@code nodes} send from {@code fromNanos} ({@link
     * System#nanoTime()}) on, until {@link Watch#sentUntil} is called, whenever their echoes arrive.
     */
    Watch watch(int[] nodes, long fromNanos) {
        Watch watch = new Watch(nodes, fromNanos);
        watches.add(watch);
        return watch;
    }

    /** The round trips of some nodes' messages sent within a span of time: those of a gateway that was killed. */
    static final class Watch {
        private final BitSet nodes = new BitSet();
        private final long fromNanos;
        private volatile long untilNanos = Long.MAX_VALUE;
        private final Histogram rtts = new Histogram(MAX_RTT_MICROS, 3);

        private Watch(int[] watched, long fromNanos) {
            for (int node : watched) {
                nodes.set(node);
            }
            this.fromNanos = fromNanos;
        }

        /** Messages sent after this are not kept. */
        void sentUntil(long nanos) {
            untilNanos = nanos;
        }

        private void arrived(int node, long sentAt, long rttMicros) {
            if (!nodes.get(node)) {
                return;
            }
            if (sentAt >= fromNanos && sentAt <= untilNanos) {
                synchronized (this) {
                    rtts.recordValue(Math.min(Math.max(rttMicros, 0), MAX_RTT_MICROS));
                }
            }
        }

        synchronized Histogram histogram() {
            return rtts.copy();
        }
    }

    /** The first reorderings and repeats seen (up to 200 of each kind), one line each. */
    java.util.List<String> anomalies() {
        return java.util.List.copyOf(anomalies);
    }

    private long echoIdOf(int node, int seq) {
        long[] ids = echoIds[node];
        return ids == null || seq >= ids.length ? 0 : ids[seq];
    }

    private void rememberEchoId(int node, int seq, long id) {
        long[] ids = echoIds[node];
        if (ids == null || seq >= ids.length) {
            ids = java.util.Arrays.copyOf(ids == null ? new long[0] : ids, Math.max(seq + 1, ids == null ? 16 : ids.length * 2));
            echoIds[node] = ids;
        }
        ids[seq] = id;
    }

    /** Records a round trip counted elsewhere (a scenario with its own bookkeeping). */
    void record(int seq, long rttMicros) {
        long rtt = Math.min(Math.max(rttMicros, 0), MAX_RTT_MICROS);
        interval.recordValue(rtt);
        synchronized (this) {
            total.recordValue(rtt);
            if (seq >= sumBySeq.length) {
                int size = Math.max(seq + 1, sumBySeq.length * 2);
                sumBySeq = java.util.Arrays.copyOf(sumBySeq, size);
                countBySeq = java.util.Arrays.copyOf(countBySeq, size);
            }
            sumBySeq[seq] += rtt;
            countBySeq[seq]++;
        }
    }

    /** Round trips since the last call. */
    Histogram takeInterval() {
        return interval.getIntervalHistogram();
    }

    synchronized Histogram total() {
        return total.copy();
    }

    /** Mean RTT in ms of the n-th message of every node, for n = 0.. the last with any echo. */
    synchronized double[] meanMsBySeq() {
        int last = countBySeq.length - 1;
        while (last >= 0 && countBySeq[last] == 0) {
            last--;
        }
        double[] means = new double[last + 1];
        for (int i = 0; i <= last; i++) {
            means[i] = countBySeq[i] == 0 ? Double.NaN : sumBySeq[i] / countBySeq[i] / 1000.0;
        }
        return means;
    }

    /** The echoes of one second: how many arrived, and their p50, p99 and mean RTT in ms (NaN if none). */
    record Second(long delivered, double p50Ms, double p99Ms, double meanMs) {
    }

    /**
     * Calls {@code each} once a second, on the calling thread, with the echoes of that second, while
     * {@code running} holds ({@code each} may return false to stop); returns when interrupted too.
     */
    void everySecond(java.util.function.BooleanSupplier running, java.util.function.Predicate<Second> each) {
        long next = System.nanoTime();
        long lastDelivered = delivered.get();
        takeInterval();
        while (running.getAsBoolean()) {
            next += TimeUnit.SECONDS.toNanos(1);
            try {
                TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime()));
            } catch (InterruptedException e) {
                return;
            }
            long now = delivered.get();
            Histogram interval = takeInterval();
            boolean any = interval.getTotalCount() > 0;
            if (!running.getAsBoolean() || !each.test(new Second(now - lastDelivered,
                    any ? interval.getValueAtPercentile(50) / 1000.0 : Double.NaN,
                    any ? interval.getValueAtPercentile(99) / 1000.0 : Double.NaN,
                    any ? interval.getMean() / 1000.0 : Double.NaN))) {
                return;
            }
            lastDelivered = now;
        }
    }

    /** Waits for the echoes still on their way until all are in or none came for {@code quietSeconds}. */
    void awaitEchoes(int quietSeconds, Runnable progress) throws InterruptedException {
        awaitEchoes(quietSeconds, () -> 0, progress);
    }

    /**
     * The same, not waiting for the {@code handedBack} messages: those the gateway refused and the
     * client SDK handed back to the application, whose echo will not come.
     */
    void awaitEchoes(int quietSeconds, LongSupplier handedBack, Runnable progress) throws InterruptedException {
        Fleet.waitUntilDoneOrQuiet(() -> delivered.get() + handedBack.getAsLong() >= sent.get(),
                () -> delivered.get() + handedBack.getAsLong(), quietSeconds, progress);
    }

    long lost() {
        return sent.get() - delivered.get();
    }

    /**
     * Messages numbered {@code [fromSeq, toSeq)} that were sent ({@code sentPerNode[node]} messages each,
     * numbered from 0) and never echoed: the losses of one stretch of a run.
     */
    long missing(int fromSeq, int toSeq, int[] sentPerNode) {
        long missing = 0;
        for (int node = 0; node < received.length; node++) {
            int to = Math.min(toSeq, sentPerNode[node]);
            if (to <= fromSeq) {
                continue;
            }
            synchronized (received[node]) {
                missing += (to - fromSeq) - received[node].get(fromSeq, to).cardinality();
            }
        }
        return missing;
    }
}
