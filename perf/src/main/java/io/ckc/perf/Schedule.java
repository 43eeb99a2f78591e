package io.ckc.perf;

import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When each simulated node sends: {@code messages} each at {@code ratePerMinute}, every node from
 * a random phase so the load is even; the gaps are constant, or exponential (Poisson arrivals, as
 * JMeter's Poisson timer in the load-testing study) with the same mean.
 */
final class Schedule {

    enum Arrivals { CONSTANT, POISSON }

    /** One scheduled message: the {@code seq}-th of node {@code node}. */
    interface Send {
        void send(int node, int seq);
    }

    private Schedule() {
    }

    /** The wait before a node's next send; {@code first}: before its first, from the start. */
    static long gap(Arrivals arrivals, Random random, long meanGapNanos, boolean first) {
        if (arrivals == Arrivals.POISSON) {
            return (long) (-Math.log(1 - random.nextDouble()) * meanGapNanos);
        }
        return first ? (long) (random.nextDouble() * meanGapNanos) : meanGapNanos;
    }

    /** Runs the schedule, counting every send in {@code sent}; blocks until the last; ticks every 200 ms. */
    static void run(int nodes, int messages, double ratePerMinute, Arrivals arrivals, Send send, AtomicLong sent,
                    Runnable tick) throws InterruptedException {
        run(nodes, messages, Long.MAX_VALUE, ratePerMinute, arrivals, send, sent, tick);
    }

    /**
     * Sends at the rate for {@code seconds}, as many messages as fall in that time: the offered load
     * stays level to the end (a fixed count per node would tail off as nodes finish).
     */
    static void runFor(int nodes, double seconds, double ratePerMinute, Arrivals arrivals, Send send, AtomicLong sent,
                       Runnable tick) throws InterruptedException {
        run(nodes, Integer.MAX_VALUE, (long) (seconds * 1e9), ratePerMinute, arrivals, send, sent, tick);
    }

    private static void run(int nodes, int messages, long durationNanos, double ratePerMinute, Arrivals arrivals,
                            Send send, AtomicLong sent, Runnable tick) throws InterruptedException {
        long meanGapNanos = (long) (TimeUnit.MINUTES.toNanos(1) / ratePerMinute);
        Random random = new Random(42);
        long start = System.nanoTime();
        long end = durationNanos == Long.MAX_VALUE ? Long.MAX_VALUE : start + durationNanos;
        PriorityQueue<long[]> due = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        for (int i = 0; i < nodes; i++) {
            // Why: the first send must come from the same process as the rest, or the load overshoots
            // until a gap has passed: a uniform phase for constant gaps, an exponential one for Poisson.
            long first = start + gap(arrivals, random, meanGapNanos, true);
            if (first < end) {
                due.add(new long[] {first, i, 0});
            }
        }
        long nextTick = start;
        while (!due.isEmpty()) {
            long now = System.nanoTime();
            while (!due.isEmpty() && due.peek()[0] <= now) {
                long[] entry = due.poll();
                int node = (int) entry[1];
                int seq = (int) entry[2];
                send.send(node, seq);
                sent.incrementAndGet();
                if (seq + 1 < messages) {
                    long gap = gap(arrivals, random, meanGapNanos, false);
                    if (entry[0] + gap < end) {
                        due.add(new long[] {entry[0] + gap, node, seq + 1});
                    }
                }
            }
            if (now >= nextTick) {
                tick.run();
                nextTick = now + TimeUnit.MILLISECONDS.toNanos(200);
            }
            long sleep = due.isEmpty() ? 0 : Math.min(due.peek()[0] - System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(5));
            if (sleep > 0) {
                TimeUnit.NANOSECONDS.sleep(sleep);
            }
        }
    }
}
