package io.ckc.perf;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code perf probe}: whether the stack is ready, answered by use. One node per gateway connects and
 * sends one echo; the stack is ready when every echo came back through its gateway, Kafka, the echo
 * job and the delivery job. Then, optionally, a warm-up: a moderate load for some seconds, so the
 * JVMs have compiled the hot paths before the first measured message (a fresh stack's first
 * seconds otherwise run at seconds of latency on two cores, and on a loaded machine tipped it over).
 * {@code ./ckc up} runs it and returns only when it succeeded.
 */
@Command(name = "probe", mixinStandardHelpOptions = true,
        description = "Waits until an echo has made the round trip through every gateway; then warms the stack up.")
final class ProbeCommand implements Callable<Integer> {

    @Option(names = "--gateways", required = true, split = ",", description = "Gateway UDP addresses, host:port,...")
    List<String> gateways;

    @Option(names = "--timeout-seconds", defaultValue = "120", description = "Give up after this long (default ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Option(names = "--warm-up-seconds", defaultValue = "0", description = "Then this long of moderate load (default ${DEFAULT-VALUE})")
    int warmUpSeconds;

    @Option(names = "--warm-up-nodes", defaultValue = "1000", description = "Nodes of the warm-up load (default ${DEFAULT-VALUE})")
    int warmUpNodes;

    @Option(names = "--warm-up-rate", defaultValue = "60", description = "Messages per minute per warm-up node (default ${DEFAULT-VALUE})")
    double warmUpRate;

    PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        List<InetSocketAddress> addresses = gateways.stream().map(DemoCommand::address).toList();
        long start = System.nanoTime();
        boolean ready;
        try (Fleet probe = new Fleet(addresses.size(), addresses, 1)) { // node i connects to gateway i
            probe.connectAll(0);
            for (int i = 0; i < addresses.size(); i++) {
                probe.sendEcho(i, 0);
            }
            probe.sent.set(addresses.size());
            Fleet.waitFor(() -> probe.delivered.get() >= addresses.size(), timeoutSeconds, () -> { });
            ready = probe.delivered.get() >= addresses.size();
            out.printf(Locale.ROOT, "probe: %d of %d gateways answered an echo end to end in %.1f s%n",
                    probe.delivered.get(), addresses.size(), (System.nanoTime() - start) / 1e9);
        }
        if (!ready) {
            out.println("probe: the stack did not answer in " + timeoutSeconds + " s");
            return 1;
        }
        if (warmUpSeconds > 0) {
            int messages = Math.max(1, (int) Math.round(warmUpRate * warmUpSeconds / 60.0));
            out.printf(Locale.ROOT, "warm-up: %d nodes, %d messages each at %.0f/min (%.0f msg/s)...%n", warmUpNodes,
                    messages, warmUpRate, warmUpNodes * warmUpRate / 60);
            try (Fleet fleet = new Fleet(warmUpNodes, addresses, 2)) {
                fleet.connectAll(TimeUnit.MILLISECONDS.toMicros(1));
                Fleet.waitFor(() -> fleet.connected.get() >= warmUpNodes, timeoutSeconds, () -> { });
                fleet.runSchedule(messages, warmUpRate, () -> { });
                fleet.awaitEchoes(10, () -> { });
                out.printf(Locale.ROOT, "warm-up: %d of %d echoes back, p99 %.1f ms%n",
                        fleet.delivered.get(), fleet.sent.get(), fleet.takeInterval().getValueAtPercentile(99) / 1000.0);
            }
        }
        return 0;
    }
}
