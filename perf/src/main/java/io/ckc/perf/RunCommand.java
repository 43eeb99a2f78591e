package io.ckc.perf;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code perf run}: one configuration of a scenario on one path, {@code ckc} (nodes through the
 * gateways, Kafka, the echo job and the delivery job), {@code mqtt} (MQTT 5 devices the same way, on the gateways'
 * MQTT ports), {@code mixed} (half of each at once) or {@code kafka} (the bare-Kafka baseline);
 * adds its figures to the results folder and prints its {@code RESULT} line. {@code ./ckc perf
 * scenario1} runs it once per configuration and path, restarting the stack in each shape.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "One configuration of a scenario, on the CKC stack or the bare-Kafka baseline, into a results folder.")
final class RunCommand implements Callable<Integer> {

    @Option(names = "--config", required = true, description = "Configuration id, e.g. 1")
    String config;

    @Option(names = "--path", defaultValue = Results.CKC, description = "ckc (UDP nodes), mqtt (MQTT 5 devices on "
            + "--mqtt-gateways), mixed (half of each at once) or kafka (the baseline)")
    String path;

    @Option(names = "--app-parallelism", defaultValue = "1", description = "Echo application parallelism (for the tables)")
    int appParallelism;

    @Option(names = "--nodes", defaultValue = "1000", description = "Simulated mobile nodes (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--messages", defaultValue = "10", description = "Messages per node (default ${DEFAULT-VALUE}; the paper: 500)")
    int messages;

    @Option(names = "--rate", defaultValue = "12", description = "Messages per minute per node (default ${DEFAULT-VALUE}; the paper: 4)")
    double ratePerMinute;

    @Option(names = "--arrivals", defaultValue = "CONSTANT", description = "CONSTANT or POISSON gaps between a node's messages")
    Schedule.Arrivals arrivals;

    @Option(names = "--connect-interval-ms", defaultValue = "1", description = "Pause between two node connections (default ${DEFAULT-VALUE})")
    double connectIntervalMs;

    @Option(names = "--warm-up-seconds", defaultValue = "30",
            description = "Unmeasured load first, at the run's rate, with its echoes awaited (default ${DEFAULT-VALUE}; 0: none); on both paths")
    double warmUpSeconds;

    @Option(names = "--drain-seconds", defaultValue = "20", description = "Wait this long without progress for the last echoes (default ${DEFAULT-VALUE})")
    int drainSeconds;

    @Mixin
    StackOptions stack = new StackOptions();

    PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        Results.RunRow row = run();
        out.println(row.resultLine());
        return row.lost() == 0 && row.duplicates() == 0 ? 0 : 1;
    }

    Results.RunRow run() throws Exception {
        Results results = new Results(stack.resultsDir);
        long expected = (long) nodes * messages;
        out.printf(Locale.ROOT, "Configuration %s on %s: %d nodes, %d messages each at %.1f/min%n", config,
                path.equals(Results.KAFKA) ? "bare Kafka"
                        : stack.gateways.size() + " gateway(s) (" + path + "), echo x" + appParallelism,
                nodes, messages, ratePerMinute);
        try (ProcessSampler sampler = new ProcessSampler(ProcessSampler.stackProcesses(stack.pidsDir))) {
            RoundTrips trips;
            double seconds;
            int gatewayCount;
            if (path.equals(Results.CKC)) {
                List<InetSocketAddress> addresses = stack.gatewayAddresses();
                gatewayCount = addresses.size();
                try (Fleet fleet = new Fleet(nodes, addresses, stack.ioThreads).channel(stack.channel)) {
                    FleetProgress progress = new FleetProgress(fleet, expected, out, () -> "");
                    fleet.connectAll((long) (connectIntervalMs * 1000));
                    Fleet.waitFor(() -> fleet.connected.get() >= nodes, 180, progress);
                    warmUp(fleet.trips, fleet::sendEcho, progress);
                    long start = System.nanoTime();
                    fleet.runSchedule(messages, ratePerMinute, arrivals, progress);
                    fleet.awaitEchoes(drainSeconds, progress);
                    seconds = (System.nanoTime() - start) / 1e9;
                    trips = fleet.trips;
                }
            } else if (path.equals(Results.MQTT)) {
                List<InetSocketAddress> addresses = stack.mqttAddresses();
                gatewayCount = addresses.size();
                try (MqttFleet fleet = new MqttFleet(nodes, addresses, stack.ioThreads).channel(stack.channel)) {
                    FleetProgress progress = new FleetProgress(fleet.trips, fleet.connected::get, nodes, expected, out,
                            () -> "");
                    fleet.connectAll((long) (connectIntervalMs * 1000));
                    Fleet.waitFor(() -> fleet.connected.get() >= nodes, 180, progress);
                    warmUp(fleet.trips, fleet::sendEcho, progress);
                    long start = System.nanoTime();
                    Schedule.run(nodes, messages, ratePerMinute, arrivals, fleet::sendEcho, fleet.trips.sent, progress);
                    fleet.awaitEchoes(drainSeconds, progress);
                    seconds = (System.nanoTime() - start) / 1e9;
                    trips = fleet.trips;
                }
            } else if (path.equals(Results.MIXED)) {
                gatewayCount = stack.gatewayAddresses().size();
                try (LoadPath mixed = LoadPath.open(Results.MIXED, stack, nodes, out)) {
                    trips = mixed.trips();
                    FleetProgress progress = new FleetProgress(trips, mixed::connected, nodes, expected, out, () -> "");
                    warmUp(trips, mixed::send, progress);
                    long start = System.nanoTime();
                    Schedule.run(nodes, messages, ratePerMinute, arrivals, mixed::send, trips.sent, progress);
                    trips.awaitEchoes(drainSeconds, progress);
                    seconds = (System.nanoTime() - start) / 1e9;
                }
            } else if (path.equals(Results.KAFKA)) {
                gatewayCount = 0;
                try (BaselineEcho baseline = new BaselineEcho(stack.bootstrap, nodes)) {
                    trips = baseline.trips;
                    FleetProgress progress = new FleetProgress(trips, () -> nodes, nodes, expected, out, () -> "");
                    warmUp(trips, baseline::send, progress);
                    long start = System.nanoTime();
                    Schedule.run(nodes, messages, ratePerMinute, arrivals, baseline::send, trips.sent, progress);
                    trips.awaitEchoes(drainSeconds, progress);
                    seconds = (System.nanoTime() - start) / 1e9;
                }
            } else {
                throw new IllegalArgumentException("--path is ckc, mqtt, mixed or kafka, not " + path);
            }
            out.println();
            Results.RunRow row = Results.RunRow.of(config, path, nodes, path.equals(Results.KAFKA) ? 0 : appParallelism,
                    gatewayCount, messages, ratePerMinute, trips, seconds);
            results.addRun(row, trips, sampler.samples());
            return row;
        }
    }

    /**
     * The run's warm-up: the run's own load for {@link #warmUpSeconds} (every node sends at least once
     * at rates from 2/min), then a wait for its echoes, so the measured messages find each node's
     * route in place and the path compiled: the paper's runs (500 messages per node at 4/min) were
     * two hours long, ours are a minute. Said in the log, never in the figures.
     */
    private void warmUp(RoundTrips trips, Schedule.Send send, Runnable progress) throws InterruptedException {
        if (warmUpSeconds <= 0) {
            return;
        }
        long start = System.nanoTime();
        Schedule.runFor(nodes, warmUpSeconds, ratePerMinute, arrivals,
                (node, seq) -> send.send(node, RoundTrips.warmUpSeq(seq)), trips.warmUpSent, progress);
        Fleet.waitUntilDoneOrQuiet(() -> trips.warmUpDelivered.get() >= trips.warmUpSent.get(),
                trips.warmUpDelivered::get, drainSeconds, progress);
        out.printf(Locale.ROOT, "warm-up (not measured): %d of %d echoes back after %.1f s%n",
                trips.warmUpDelivered.get(), trips.warmUpSent.get(), (System.nanoTime() - start) / 1e9);
    }
}
