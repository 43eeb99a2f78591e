package io.ckc.perf;

import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.BalanceRound;
import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.client.ClientConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code ./ckc perf rebalance}: every node connects to the first gateway, the PoA manager hands
 * them over to the others while they keep round-tripping echo messages. Reports the rounds and
 * seconds until every gateway holds its ideal count In(X) ±5% (counted by the nodes themselves,
 * In(X) from the PoA manager's latest round), the handovers, the most any node was handed over,
 * and messages lost; ends with one {@code RESULT} line. Exits 1 if a message was lost or the fleet
 * did not balance.
 */
@Command(name = "rebalance", mixinStandardHelpOptions = true,
        description = "Start every node on one gateway and measure how the PoA manager spreads them.")
final class RebalanceCommand implements Callable<Integer> {

    @Option(names = "--gateways", required = true, split = ",", description = "Gateway UDP addresses; nodes start on the first")
    List<String> gateways;

    @Option(names = "--mqtt-gateways", split = ",", paramLabel = "HOST:PORT",
            description = "The gateways' MQTT addresses (--protocol mqtt or mixed); devices start on the first")
    List<String> mqttGateways = List.of();

    @Mixin
    ProtocolOption protocol = new ProtocolOption();

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka, to follow the PoA manager's rounds")
    String bootstrap;

    @Option(names = "--topic-prefix", defaultValue = "ckc.", description = "CKC topic prefix (default ${DEFAULT-VALUE})")
    String topicPrefix;

    @Option(names = "--nodes", defaultValue = "15000", description = "Simulated mobile nodes (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--rate", defaultValue = "2", description = "Echo messages per minute per node while balancing (default ${DEFAULT-VALUE})")
    double ratePerMinute;

    @Option(names = "--messages", defaultValue = "3", description = "Messages per node (default ${DEFAULT-VALUE})")
    int messages;

    @Option(names = "--tolerance", defaultValue = "0.05", description = "Balanced: every gateway within this share of In(X) (default ${DEFAULT-VALUE})")
    double tolerance;

    @Option(names = "--timeout-seconds", defaultValue = "300", description = "Give up balancing after this long (default ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Option(names = "--drain-seconds", defaultValue = "30", description = "Wait this long without progress for the last echoes (default ${DEFAULT-VALUE})")
    int drainSeconds;

    @Option(names = "--io-threads", defaultValue = "2", description = "Simulator I/O threads (default ${DEFAULT-VALUE})")
    int ioThreads;

    PrintStream out = System.out;
    private final List<BalanceRound> rounds = new CopyOnWriteArrayList<>();
    private final Map<String, ConnectionStatistics> latestStatistics = new ConcurrentHashMap<>();
    private volatile long balancedAtNanos;
    private volatile long roundsUntilBalanced;

    @Override
    public Integer call() throws Exception {
        StackOptions firstGateway = StackOptions.of(gateways.subList(0, 1),
                mqttGateways.isEmpty() ? List.of() : mqttGateways.subList(0, 1), bootstrap, ioThreads);
        Topics topics = new Topics(topicPrefix, Topics.DEFAULT.appPrefix());
        out.printf(Locale.ROOT, "Rebalance: %d nodes (%s) all on gw-1, %d gateway(s); echo %d messages each at %.1f/min%n",
                nodes, protocol.protocol, gateways.size(), messages, ratePerMinute);
        TopicFollower roundFollower = new TopicFollower(bootstrap, topics.balanceRounds(), BalanceRound.class,
                rounds::add, out);
        TopicFollower statsFollower = new TopicFollower(bootstrap, topics.gatewayStats(), ConnectionStatistics.class,
                stats -> latestStatistics.put(stats.gatewayId(), stats), out);
        long start;
        Map<String, Integer> counts;
        long sent;
        long delivered;
        long handovers;
        int maxPerNode;
        long unsent;
        Map<String, ConnectionStatistics> pingWindows;
        start = System.nanoTime();
        try (LoadPath fleet = LoadPath.open(protocol.path(), firstGateway, nodes, out, ClientConfig.DEFAULT)) {
            FleetProgress progress = new FleetProgress(fleet.trips(), fleet::connected, nodes, (long) nodes * messages,
                    out, () -> "  handovers " + fleet.handovers() + "  " + fleet.countsByGateway());
            Runnable watch = () -> {
                checkBalanced(fleet);
                progress.run();
            };
            out.printf(Locale.ROOT, "%n%d nodes connected in %.1f s; sending while the PoA manager balances...%n",
                    fleet.connected(), (System.nanoTime() - start) / 1e9);
            Schedule.run(nodes, messages, ratePerMinute, Schedule.Arrivals.CONSTANT, fleet::send, fleet.trips().sent,
                    watch);
            Fleet.waitFor(() -> balancedAtNanos != 0, timeoutSeconds, watch);
            fleet.trips().awaitEchoes(drainSeconds, watch);
            out.println();
            counts = fleet.countsByGateway();
            sent = fleet.trips().sent.get();
            delivered = fleet.trips().delivered.get();
            handovers = fleet.handovers();
            maxPerNode = fleet.maxHandoversOfANode();
            unsent = fleet.shed();
            pingWindows = new TreeMap<>(latestStatistics); // before the nodes leave
        } finally {
            roundFollower.close();
            statsFollower.close();
        }
        printRounds();
        printPingWindows(pingWindows);
        boolean balanced = balancedAtNanos != 0;
        double seconds = balanced ? (balancedAtNanos - start) / 1e9 : Double.NaN;
        long lost = sent - delivered;
        out.printf("Final nodes per gateway: %s; unsent reported by the SDK: %d%n", counts, unsent);
        out.printf(Locale.ROOT,
                "RESULT rounds=%d seconds=%.1f handovers=%d max_handovers_per_mn=%d lost=%d balanced=%s%n",
                roundsUntilBalanced, seconds, handovers, maxPerNode, lost, balanced);
        return balanced && lost == 0 ? 0 : 1;
    }

    /** Balanced when the nodes' own counts are within the tolerance of the latest round's In(X). */
    private void checkBalanced(LoadPath fleet) {
        if (balancedAtNanos != 0 || rounds.isEmpty()) {
            return;
        }
        BalanceRound latest = rounds.get(rounds.size() - 1);
        Map<String, Integer> counts = fleet.countsByGateway();
        int total = counts.values().stream().mapToInt(Integer::intValue).sum();
        if (total < nodes || latest.gateways().size() != gateways.size() || latest.nodes() == 0) {
            return;
        }
        double scale = (double) total / latest.nodes(); // the round counted a moment earlier
        boolean within = latest.gateways().stream().allMatch(share -> Math.abs(
                counts.getOrDefault(share.gatewayId(), 0) - share.ideal() * scale) <= tolerance * share.ideal() * scale);
        if (within) {
            balancedAtNanos = System.nanoTime();
            roundsUntilBalanced = rounds.stream().filter(r -> r.handovers() > 0).count();
        }
    }

    private void printRounds() {
        out.println("PoA manager rounds that moved nodes (ideal In(X) and connected per gateway as the round saw them):");
        out.printf("%6s %9s %8s  %s%n", "round", "handovers", "cooling", "gateway connected/ideal score");
        for (BalanceRound round : rounds) {
            if (round.handovers() == 0) {
                continue;
            }
            List<String> shares = new ArrayList<>();
            round.gateways().forEach(s -> shares.add(String.format(Locale.ROOT, "%s %d/%d %.3f", s.gatewayId(),
                    s.connected(), s.ideal(), s.score())));
            out.printf("%6d %9d %8d  %s%n", round.round(), round.handovers(), round.inCooldown(), String.join(", ", shares));
        }
    }

    private void printPingWindows(Map<String, ConnectionStatistics> latest) {
        out.println("Latest ping window per gateway (Connection Statistics from the PoA manager):");
        latest.values().forEach(s -> out.printf(Locale.ROOT,
                "  %s window %d ms: %d/%d answered (ping rate %s), latency ms mean %s sd %s median %s min %s max %s%n",
                s.gatewayId(), s.windowMs(), s.answered(), s.connected(), orDash(s.pingRate()), orDash(s.meanMs()),
                orDash(s.stdDevMs()), orDash(s.medianMs()), orDash(s.minMs()), orDash(s.maxMs())));
    }

    private static String orDash(Double value) {
        return value == null ? "-" : String.format(Locale.ROOT, "%.2f", value);
    }
}
