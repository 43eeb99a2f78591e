package io.ckc.perf;

import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./ckc demo}: a simulated fleet sends messages through gateways, Kafka and the echo
 * application and back through the delivery job; live progress, then the paper's Figure 4 table
 * and one {@code RESULT} line. Exits 1 if any message was lost.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Round-trip a simulated fleet through the echo application and report RTT and delivery rate.")
final class DemoCommand implements Callable<Integer> {

    @Option(names = "--gateways", required = true, split = ",", description = "Gateway UDP addresses, host:port,...")
    List<String> gateways;

    @Option(names = "--gateway-count", description = "Gateways in the stack (for the report); default: addresses given")
    Integer gatewayCount;

    @Option(names = "--app-parallelism", defaultValue = "1", description = "Echo application parallelism (for the report)")
    int appParallelism;

    @Option(names = "--nodes", defaultValue = "1000", description = "Simulated mobile nodes (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--rate", defaultValue = "12", description = "Messages per minute per node (default ${DEFAULT-VALUE}; the paper: 4)")
    double ratePerMinute;

    @Option(names = "--messages", defaultValue = "10", description = "Messages per node (default ${DEFAULT-VALUE}; the paper: 500)")
    int messages;

    @Option(names = "--connect-interval-ms", defaultValue = "1", description = "Pause between two node connections (default ${DEFAULT-VALUE})")
    double connectIntervalMs;

    @Option(names = "--drain-seconds", defaultValue = "20", description = "Wait this long without progress for the last echoes (default ${DEFAULT-VALUE})")
    int drainSeconds;

    @Option(names = "--io-threads", defaultValue = "2", description = "Simulator I/O threads (default ${DEFAULT-VALUE})")
    int ioThreads;

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        List<InetSocketAddress> addresses = gateways.stream().map(DemoCommand::address).toList();
        int gatewaysInStack = gatewayCount == null ? addresses.size() : gatewayCount;
        long expected = (long) nodes * messages;
        out.printf(Locale.ROOT, "Demo: %d nodes on %d gateway(s), echo parallelism %d, %d messages each at %.1f/min%n",
                nodes, gatewaysInStack, appParallelism, messages, ratePerMinute);
        Progress progress;
        Histogram total;
        long sent;
        long delivered;
        long duplicates;
        try (Fleet fleet = new Fleet(nodes, addresses, ioThreads)) {
            progress = new Progress(fleet, expected);
            long start = System.nanoTime();
            fleet.connectAll((long) (connectIntervalMs * 1000));
            waitFor(() -> fleet.connected.get() >= nodes, 120, progress);
            if (fleet.connected.get() < nodes) {
                out.printf("%nOnly %d of %d nodes connected: is the stack up?%n", fleet.connected.get(), nodes);
            }
            out.printf(Locale.ROOT, "%n%d nodes connected in %.1f s; sending...%n", fleet.connected.get(),
                    (System.nanoTime() - start) / 1e9);
            fleet.runSchedule(messages, ratePerMinute, progress);
            long lastDelivered = -1;
            long quietSince = System.nanoTime();
            while (fleet.delivered.get() < fleet.sent.get()) {
                Thread.sleep(1000);
                progress.run();
                if (fleet.delivered.get() != lastDelivered) {
                    lastDelivered = fleet.delivered.get();
                    quietSince = System.nanoTime();
                } else if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(drainSeconds)) {
                    break;
                }
            }
            progress.run();
            total = fleet.total();
            sent = fleet.sent.get();
            delivered = fleet.delivered.get();
            duplicates = fleet.duplicates.get();
            out.println();
            if (fleet.unsent.get() > 0 || fleet.errors.get() > 0) {
                out.printf("Unsent (reported by the client SDK): %d, errors: %d%n", fleet.unsent.get(), fleet.errors.get());
            }
        }
        double te = sent == 0 ? 0 : 100.0 * delivered / sent;
        Report.figure4(out, List.of(new Report.Row(nodes, appParallelism, gatewaysInStack, total, te)));
        out.printf(Locale.ROOT,
                "RESULT nodes=%d gateways=%d sent=%d delivered=%d duplicates=%d te=%.2f rtt_mean_ms=%.2f rtt_p50_ms=%.2f rtt_p99_ms=%.2f%n",
                nodes, gatewaysInStack, sent, delivered, duplicates, te, total.getMean() / 1000.0,
                total.getValueAtPercentile(50) / 1000.0, total.getValueAtPercentile(99) / 1000.0);
        return delivered == sent && sent == expected ? 0 : 1;
    }

    private static void waitFor(java.util.function.BooleanSupplier done, int seconds, Runnable progress)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(250);
            progress.run();
        }
    }

    static InetSocketAddress address(String hostPort) {
        String[] parts = hostPort.trim().split(":");
        if (parts.length != 2) {
            throw new IllegalArgumentException("expected host:port, got '" + hostPort + "'");
        }
        return new InetSocketAddress(parts[0], Integer.parseInt(parts[1]));
    }

    /** One line of live progress: on a terminal it rewrites itself, otherwise one line every 5 s. */
    private final class Progress implements Runnable {
        private final Fleet fleet;
        private final long expected;
        private final long start = System.nanoTime();
        private final boolean terminal = System.console() != null;
        private long lastNanos = start;
        private long lastDelivered;
        private long lastPrinted;

        Progress(Fleet fleet, long expected) {
            this.fleet = fleet;
            this.expected = expected;
        }

        @Override
        public synchronized void run() {
            long now = System.nanoTime();
            if (now - lastNanos < TimeUnit.MILLISECONDS.toNanos(900)) {
                return;
            }
            Histogram interval = fleet.takeInterval();
            long delivered = fleet.delivered.get();
            double perSecond = (delivered - lastDelivered) / ((now - lastNanos) / 1e9);
            long sent = fleet.sent.get();
            String line = String.format(Locale.ROOT,
                    "[%4ds] connected %d/%d  sent %d/%d  delivered %d (%.2f%%)  %.0f msg/s  rtt p50 %.1f ms  p99 %.1f ms",
                    TimeUnit.NANOSECONDS.toSeconds(now - start), fleet.connected.get(), fleet.size(), sent, expected,
                    delivered, sent == 0 ? 100.0 : 100.0 * delivered / sent, perSecond,
                    interval.getValueAtPercentile(50) / 1000.0, interval.getValueAtPercentile(99) / 1000.0);
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
    }

}
