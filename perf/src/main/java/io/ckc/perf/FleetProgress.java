package io.ckc.perf;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One line of live progress of a fleet run, at most once a second: on a terminal it rewrites
 * itself, otherwise one line every 5 s. {@code extra} adds what a scenario wants shown.
 */
final class FleetProgress implements Runnable {

    private final RoundTrips trips;
    private final java.util.function.IntSupplier connected;
    private final int nodes;
    private final long expected;
    private final PrintStream out;
    private final Supplier<String> extra;
    private final long start = System.nanoTime();
    private final boolean terminal = System.console() != null;
    private long lastNanos = start;
    private long lastDelivered;
    private long lastPrinted;

    FleetProgress(Fleet fleet, long expected, PrintStream out, Supplier<String> extra) {
        this(fleet.trips, fleet.connected::get, fleet.size(), expected, out, extra);
    }

    /** Progress of any echo path: the nodes connected (or all, for the baseline) and the round trips. */
    FleetProgress(RoundTrips trips, java.util.function.IntSupplier connected, int nodes, long expected, PrintStream out,
                  Supplier<String> extra) {
        this.trips = trips;
        this.connected = connected;
        this.nodes = nodes;
        this.expected = expected;
        this.out = out;
        this.extra = extra;
    }

    @Override
    public synchronized void run() {
        long now = System.nanoTime();
        if (now - lastNanos < TimeUnit.MILLISECONDS.toNanos(900)) {
            return;
        }
        Histogram interval = trips.takeInterval();
        long delivered = trips.delivered.get();
        double perSecond = (delivered - lastDelivered) / ((now - lastNanos) / 1e9);
        long sent = trips.sent.get();
        String line = String.format(Locale.ROOT,
                "[%4ds] %s connected %d/%d  sent %d/%d  delivered %d (%.2f%%)  %.0f msg/s  rtt p50 %.1f ms  p99 %.1f ms%s",
                TimeUnit.NANOSECONDS.toSeconds(now - start), bar(sent), connected.getAsInt(), nodes, sent, expected,
                delivered, sent == 0 ? 100.0 : 100.0 * delivered / sent, perSecond,
                interval.getValueAtPercentile(50) / 1000.0, interval.getValueAtPercentile(99) / 1000.0, extra.get());
        if (terminal) {
            out.print("\r" + line + "   ");
            out.flush();
        } else if (now - lastPrinted >= TimeUnit.SECONDS.toNanos(5)) {
            out.println(line);
            lastPrinted = now;
        }
        lastNanos = now;
        lastDelivered = delivered;
    }

    /** A 20-character bar of how much of the run's messages went out. */
    private String bar(long sent) {
        int filled = expected <= 0 ? 0 : (int) Math.min(20, 20 * sent / expected);
        return "[" + "#".repeat(filled) + ".".repeat(20 - filled) + "]";
    }
}
