package io.ckc.perf;

import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.IntSupplier;

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

    @Option(names = "--channel", defaultValue = StackOptions.ECHO_CHANNEL, description = "The channel the nodes send "
            + "to (Kafka app.<channel>): the echo application's, or your own application's if it answers each message "
            + "to its sender with the payload unchanged (default ${DEFAULT-VALUE})")
    String channel;

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

    @Mixin
    ProtocolOption protocol = new ProtocolOption();

    @Option(names = "--mqtt-gateways", split = ",", paramLabel = "HOST:PORT",
            description = "The gateways' MQTT addresses, for --protocol mqtt")
    List<String> mqttGateways = List.of();

    PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        List<InetSocketAddress> addresses = gateways.stream().map(DemoCommand::address).toList();
        int gatewaysInStack = gatewayCount == null ? addresses.size() : gatewayCount;
        long expected = (long) nodes * messages;
        out.printf(Locale.ROOT, "Demo: %d nodes on %d gateway(s), echo parallelism %d, %d messages each at %.1f/min%n",
                nodes, gatewaysInStack, appParallelism, messages, ratePerMinute);
        int udpNodes = protocol.udpNodes(nodes, mqttGateways);
        int mqttNodes = nodes - udpNodes;
        Histogram total;
        long sent;
        long delivered;
        long duplicates;
        // null resources are skipped: a run of one protocol has one fleet
        try (Fleet udp = udpNodes == 0 ? null : new Fleet(udpNodes, addresses, ioThreads).channel(channel);
             MqttFleet mqtt = mqttNodes == 0 ? null : new MqttFleet(mqttNodes,
                     mqttGateways.stream().map(DemoCommand::address).toList(), ioThreads).channel(channel)) {
            IntSupplier connected = () -> (udp == null ? 0 : udp.connected.get())
                    + (mqtt == null ? 0 : mqtt.connected.get());
            FleetProgress progress = udp != null
                    ? new FleetProgress(udp, (long) udpNodes * messages, out,
                            () -> mqtt == null ? "" : "  MQTT delivered " + mqtt.trips.delivered.get())
                    : new FleetProgress(mqtt.trips, mqtt.connected::get, mqttNodes, expected, out, () -> "");
            long start = System.nanoTime();
            long intervalMicros = (long) (connectIntervalMs * 1000);
            if (udp != null) {
                udp.connectAll(intervalMicros);
            }
            if (mqtt != null) {
                mqtt.connectAll(intervalMicros);
            }
            Fleet.waitFor(() -> connected.getAsInt() >= nodes, 120, progress);
            if (connected.getAsInt() < nodes) {
                out.printf("%nOnly %d of %d nodes connected: is the stack up?%n", connected.getAsInt(), nodes);
            }
            out.printf(Locale.ROOT, "%n%d nodes connected (%d UDP, %d MQTT) in %.1f s; sending...%n",
                    connected.getAsInt(), udpNodes, mqttNodes, (System.nanoTime() - start) / 1e9);
            if (udp != null && mqtt != null) {
                // both at once, each at the demo's rate per node: the MQTT devices' schedule on a thread of its own
                Thread mqttSchedule = new Thread(() -> {
                    try {
                        mqtt.runSchedule(messages, ratePerMinute, () -> { });
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "mqtt-schedule");
                mqttSchedule.start();
                udp.runSchedule(messages, ratePerMinute, progress);
                mqttSchedule.join();
            } else if (udp != null) {
                udp.runSchedule(messages, ratePerMinute, progress);
            } else {
                mqtt.runSchedule(messages, ratePerMinute, progress);
            }
            if (udp != null) {
                udp.awaitEchoes(drainSeconds, progress);
            }
            if (mqtt != null) {
                mqtt.awaitEchoes(drainSeconds, progress);
            }
            total = (udp != null ? udp.total() : mqtt.total()).copy();
            if (udp != null && mqtt != null) {
                total.add(mqtt.total());
            }
            sent = (udp == null ? 0 : udp.sent.get()) + (mqtt == null ? 0 : mqtt.trips.sent.get());
            delivered = (udp == null ? 0 : udp.delivered.get()) + (mqtt == null ? 0 : mqtt.trips.delivered.get());
            duplicates = (udp == null ? 0 : udp.duplicates.get()) + (mqtt == null ? 0 : mqtt.trips.duplicates.get());
            out.println();
            if (udp != null && (udp.unsent.get() > 0 || udp.errors.get() > 0)) {
                out.printf("Unsent (reported by the client SDK): %d, errors: %d%n", udp.unsent.get(), udp.errors.get());
            }
            if (udp != null && udp.disconnects.get() > 0) {
                out.printf("Sessions the nodes lost: %d (%s)%n", udp.disconnects.get(), udp.disconnectsByCause());
            }
            if (mqtt != null && (mqtt.refused.get() > 0 || mqtt.errors.get() > 0)) {
                out.printf("MQTT publishes refused by the gateway: %d, errors: %d%n", mqtt.refused.get(),
                        mqtt.errors.get());
            }
        }
        return report(gatewaysInStack, expected, total, sent, delivered, duplicates);
    }

    private int report(int gatewaysInStack, long expected, Histogram total, long sent, long delivered,
                       long duplicates) {
        double te = sent == 0 ? 0 : 100.0 * delivered / sent;
        Report.figure4(out, List.of(new Report.Row(nodes, appParallelism, gatewaysInStack, total, te)));
        out.printf(Locale.ROOT,
                "RESULT nodes=%d gateways=%d sent=%d delivered=%d duplicates=%d te=%.2f rtt_mean_ms=%.2f rtt_p50_ms=%.2f rtt_p99_ms=%.2f "
                        + "protocol=%s%n",
                nodes, gatewaysInStack, sent, delivered, duplicates, te, total.getMean() / 1000.0,
                total.getValueAtPercentile(50) / 1000.0, total.getValueAtPercentile(99) / 1000.0, protocol.protocol);
        return delivered == sent && sent == expected ? 0 : 1;
    }

    static InetSocketAddress address(String hostPort) {
        String[] parts = hostPort.trim().split(":");
        if (parts.length != 2) {
            throw new IllegalArgumentException("expected host:port, got '" + hostPort + "'");
        }
        return new InetSocketAddress(parts[0], Integer.parseInt(parts[1]));
    }
}
