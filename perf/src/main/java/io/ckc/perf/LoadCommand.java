package io.ckc.perf;

import io.ckc.client.MobileNode;
import io.ckc.client.ReceivedMessage;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./ckc load}: drives simulated nodes or MQTT 5 devices (or half of each) at a rate on a channel against
 * whatever application answers it, and checks every answer with a rule ({@link AnswerRule}); ends with {@code RESULT
 * sent=.. answered=.. wrong=.. duplicates=.. unanswered=.. rtt_p50_ms=.. rtt_p99_ms=..}. Exits 1 unless every request
 * was answered, rightly and once.
 */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = "Load on a channel against the application that answers it; every answer checked with a rule.")
final class LoadCommand implements Callable<Integer> {

    @Option(names = "--gateways", required = true, split = ",", description = "Gateway UDP addresses, host:port,...")
    List<String> gateways;

    @Option(names = "--mqtt-gateways", split = ",", paramLabel = "HOST:PORT",
            description = "The gateways' MQTT addresses, for --protocol mqtt or mixed")
    List<String> mqttGateways = List.of();

    @Option(names = "--channel", required = true, description = "The channel the nodes send to (Kafka app.<channel>)")
    String channel;

    @Option(names = "--rate", defaultValue = "100", description = "Messages per second, all nodes together (default ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--seconds", defaultValue = "30", description = "How long to send (default ${DEFAULT-VALUE})")
    double seconds;

    @Option(names = "--expect", defaultValue = "unchanged", paramLabel = "RULE", description = "A right answer: "
            + "unchanged, upper (the request's text in upper case), prefix:TEXT (TEXT, then the request's text), "
            + "regex:RE (the answer's text matches RE) or class:NAME (your BiPredicate<byte[], byte[]> over request "
            + "and answer, from --classpath) (default ${DEFAULT-VALUE})")
    String expect;

    @Option(names = "--classpath", split = ",", paramLabel = "JAR", description = "Jars or folders where --expect "
            + "class:NAME finds its class")
    List<Path> classpath = List.of();

    @Option(names = "--nodes", defaultValue = "100", description = "Simulated nodes or devices (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--drain-seconds", defaultValue = "10", description = "After the last send, wait this long "
            + "without a new answer for the last ones (default ${DEFAULT-VALUE})")
    int drainSeconds;

    @Option(names = "--io-threads", defaultValue = "2", description = "Simulator I/O threads (default ${DEFAULT-VALUE})")
    int ioThreads;

    @Mixin
    ProtocolOption protocol = new ProtocolOption();

    PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        AnswerRule rule;
        try {
            rule = AnswerRule.parse(expect, classLoader());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
        if (rate <= 0 || seconds <= 0 || nodes <= 0) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--rate, --seconds and --nodes must be positive");
        }
        int udpNodes = protocol.udpNodes(nodes, mqttGateways);
        int mqttNodes = nodes - udpNodes;
        AnswerLedger ledger = new AnswerLedger(nodes, rule);
        out.printf(Locale.ROOT, "Load: %d %s on app.%s, %.0f messages a second for %.0f s, answers expected: %s%n",
                nodes, protocol.protocol.equals("udp") ? "nodes" : protocol.protocol.equals("mqtt") ? "MQTT devices"
                        : "nodes and MQTT devices", channel, rate, seconds, expect);
        try (Fleet udp = udpNodes == 0 ? null : new Fleet(udpNodes, gateways.stream().map(DemoCommand::address).toList(),
                ioThreads, fleet -> fleet.new Listener() {
                    @Override
                    public void newMessageReceived(MobileNode node, ReceivedMessage message) {
                        ledger.answer(Fleet.indexOf(node), message.payload());
                    }
                });
             MqttFleet mqtt = mqttNodes == 0 ? null : new MqttFleet(mqttNodes,
                     mqttGateways.stream().map(DemoCommand::address).toList(), ioThreads, new RoundTrips(nodes), udpNodes)
                     .deliveries((device, messageId, payload) -> ledger.answer(device, payload))) {
            if (udp != null) {
                udp.connectAll(1000);
            }
            if (mqtt != null) {
                mqtt.connectAll(1000);
            }
            Fleet.waitFor(() -> connected(udp, mqtt) >= nodes, 120, () -> { });
            if (connected(udp, mqtt) < nodes) {
                out.printf("Only %d of %d connected: is the stack up (./ckc up)?%n", connected(udp, mqtt), nodes);
                return 1;
            }
            Progress progress = new Progress(ledger);
            Schedule.runFor(nodes, seconds, rate * 60 / nodes, Schedule.Arrivals.POISSON, (node, seq) -> {
                byte[] payload = ledger.request(node, seq);
                if (node < udpNodes) {
                    udp.node(node).send(channel, payload, null);
                } else {
                    mqtt.send(node, channel, payload);
                }
            }, ledger.sent, progress);
            Fleet.waitUntilDoneOrQuiet(() -> ledger.unanswered() == 0,
                    () -> ledger.right.get() + ledger.wrong.get() + ledger.duplicates.get(), drainSeconds, progress);
            long droppedRepeats = (udp == null ? 0 : udp.duplicatesDroppedByNodes())
                    + (mqtt == null ? 0 : mqtt.duplicatesDroppedByDevices());
            long unsent = udp == null ? 0 : udp.unsent.get();
            return report(ledger, droppedRepeats, unsent);
        }
    }

    private static int connected(Fleet udp, MqttFleet mqtt) {
        return (udp == null ? 0 : udp.connected.get()) + (mqtt == null ? 0 : mqtt.connected.get());
    }

    private int report(AnswerLedger ledger, long droppedRepeats, long unsent) {
        out.println();
        ledger.wrongExamples().forEach(example -> out.println("wrong: " + example));
        if (droppedRepeats > 0) {
            out.printf("Repeats dropped by the nodes' SDK by message id (an answer written twice, harmless): %d%n",
                    droppedRepeats);
        }
        if (unsent > 0) {
            out.printf("Handed back unsent by the SDK (never reached the application): %d%n", unsent);
        }
        Histogram rtt = ledger.roundTrips();
        long sent = ledger.sent.get();
        long answered = ledger.right.get();
        long unanswered = ledger.unanswered();
        out.printf(Locale.ROOT, "RESULT sent=%d answered=%d wrong=%d duplicates=%d unanswered=%d rtt_p50_ms=%.2f "
                        + "rtt_p99_ms=%.2f protocol=%s expect=%s%n", sent, answered, ledger.wrong.get(),
                ledger.duplicates.get(), unanswered, rtt.getValueAtPercentile(50) / 1000.0,
                rtt.getValueAtPercentile(99) / 1000.0, protocol.protocol, expect);
        return answered == sent && unanswered == 0 && ledger.wrong.get() == 0 && ledger.duplicates.get() == 0 ? 0 : 1;
    }

    private ClassLoader classLoader() {
        if (classpath.isEmpty()) {
            return getClass().getClassLoader();
        }
        List<URL> urls = new ArrayList<>();
        for (Path entry : classpath) {
            try {
                urls.add(entry.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("--classpath " + entry + ": " + e.getMessage(), e);
            }
        }
        return new URLClassLoader(urls.toArray(URL[]::new), getClass().getClassLoader());
    }

    /** A line every five seconds while the load runs and drains. */
    private final class Progress implements Runnable {
        private final AnswerLedger ledger;
        private final long start = System.nanoTime();
        private long next = start + TimeUnit.SECONDS.toNanos(5);

        Progress(AnswerLedger ledger) {
            this.ledger = ledger;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            if (now < next) {
                return;
            }
            next = now + TimeUnit.SECONDS.toNanos(5);
            out.printf(Locale.ROOT, "[%4ds] sent %d  answered %d  wrong %d  duplicates %d  open %d%n",
                    TimeUnit.NANOSECONDS.toSeconds(now - start), ledger.sent.get(), ledger.right.get(),
                    ledger.wrong.get(), ledger.duplicates.get(), ledger.unanswered());
        }
    }
}
