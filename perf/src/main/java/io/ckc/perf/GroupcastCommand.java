package io.ckc.perf;

import io.ckc.protocol.records.Context;
import io.ckc.protocol.kafka.CoreMessenger;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.udfs.groups.GridCellSelection;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code ./ckc perf groupcast}: {@code members} nodes report a position in one grid cell and
 * {@code others} in another (with {@code --member-attribute} and {@code --other-attribute}, context
 * attributes too), spread over the gateways; once the definer of {@code --group} (the stack's grid-cell
 * definer by default, or a SQL rule) has written an advertisement for each, {@code --warm-ups}
 * groupcasts go out unmeasured, the last of them to every member (so the delivery job has indexed the
 * whole group, and the JIT compilers of every process on the groupcast path have compiled it), then
 * {@code --timed} groupcasts to the members' cell are timed one after another, each until
 * its last member has it. Counts members missed and extra deliveries (duplicates, or to nodes
 * outside the group); both must be 0 in every one. Ends with {@code RESULT members=.. timed=..
 * delivered=.. missed=.. extra=.. last_ms=.. last_ms_median=.. per_s=..}, where {@code last_ms} is
 * the slowest groupcast's last member, {@code delivered} and {@code missed} that groupcast's, and
 * {@code extra} the sum over all.
 */
@Command(name = "groupcast", mixinStandardHelpOptions = true,
        description = "Time groupcasts to a large group of simulated nodes and check each reached exactly the members.")
final class GroupcastCommand implements Callable<Integer> {

    /** Warm-up groupcasts sent beyond {@code --warm-ups} while the last one still misses members. */
    private static final int MORE_WARM_UPS = 5;
    private static final Context MEMBER_PLACE = new Context(-22.905, -43.175, 0.8, Map.of());
    private static final Context OTHER_PLACE = new Context(-22.995, -43.365, 0.8, Map.of());

    @Option(names = "--gateways", split = ",", description = "Gateway UDP addresses, host:port,...")
    List<String> gateways = List.of();

    @Option(names = "--mqtt-gateways", split = ",", paramLabel = "HOST:PORT",
            description = "The gateways' MQTT addresses (--protocol mqtt or mixed)")
    List<String> mqttGateways = List.of();

    @Mixin
    ProtocolOption protocol = new ProtocolOption();

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers")
    String bootstrap;

    @Option(names = "--topic-prefix", defaultValue = "ckc.", description = "CKC topic prefix (default ${DEFAULT-VALUE})")
    String topicPrefix;

    @Option(names = "--members", defaultValue = "10000", description = "Nodes in the group (default ${DEFAULT-VALUE})")
    int members;

    @Option(names = "--others", defaultValue = "500", description = "Nodes outside it, to catch extra deliveries (default ${DEFAULT-VALUE})")
    int others;

    @Option(names = "--group", description = "The group to groupcast to, <definer>/<name> (default: the grid-cell group of the members' place)")
    String group;

    @Option(names = "--member-attribute", description = "A context attribute of the members, e.g. role=driver (repeatable)")
    Map<String, String> memberAttributes = Map.of();

    @Option(names = "--other-attribute", description = "A context attribute of the other nodes, e.g. role=passenger (repeatable)")
    Map<String, String> otherAttributes = Map.of();

    @Option(names = "--channel", defaultValue = "status", description = "Channel the UDP nodes report their context on "
            + "(MQTT devices: their context topic) (default ${DEFAULT-VALUE})")
    String channel;

    @Option(names = "--connect-interval-ms", defaultValue = "1", description = "Pause between two node connections (default ${DEFAULT-VALUE})")
    double connectIntervalMs;

    @Option(names = "--drain-seconds", defaultValue = "30", description = "Wait this long without progress for the last deliveries (default ${DEFAULT-VALUE})")
    int drainSeconds;

    @Option(names = "--warm-ups", defaultValue = "5", description = "Unmeasured groupcasts first: the group's index and "
            + "the JIT warm up on the groupcast path, as other runs warm up on their own load (default ${DEFAULT-VALUE})")
    int warmUps;

    @Option(names = "--timed", defaultValue = "5", description = "Groupcasts timed one after another (default ${DEFAULT-VALUE})")
    int timed;

    @Option(names = "--reports-per-second", defaultValue = "5000", description = "Context reports sent per second "
            + "before the groupcasts, paced so the nodes' sockets keep up with them (default ${DEFAULT-VALUE})")
    int reportsPerSecond;

    @Option(names = "--io-threads", defaultValue = "2", description = "Simulator I/O threads (default ${DEFAULT-VALUE})")
    int ioThreads;

    @Option(names = "--pids-dir", description = "The stack's pid files (.ckc/pids), for each process's CPU per delivery")
    Path pidsDir;

    @Option(names = "--idle-seconds", defaultValue = "10", description = "Before the timed groupcasts, the stack's idle "
            + "CPU is measured this long, to take it out of their CPU per delivery (default ${DEFAULT-VALUE})")
    int idleSeconds;

    PrintStream out = System.out;
    private final Map<String, Arrivals> byMessage = new ConcurrentHashMap<>();

    @Override
    public Integer call() throws Exception {
        StackOptions stack = StackOptions.of(gateways, mqttGateways, bootstrap, ioThreads);
        int total = members + others;
        String group = this.group != null ? this.group : "grid-cell/" + new GridCellSelection()
                .groupsOf("any", MEMBER_PLACE.latitude(), MEMBER_PLACE.longitude(), null, Map.of()).iterator().next();
        if (timed < 1 || warmUps < 1) {
            throw new IllegalArgumentException("--timed and --warm-ups must be at least 1, got " + timed + " and " + warmUps);
        }
        if (group.indexOf('/') <= 0) {
            throw new IllegalArgumentException("--group: <definer>/<name>, got " + group);
        }
        String definer = group.substring(0, group.indexOf('/'));
        Context memberContext = new Context(MEMBER_PLACE.latitude(), MEMBER_PLACE.longitude(), MEMBER_PLACE.battery(),
                memberAttributes);
        Context otherContext = new Context(OTHER_PLACE.latitude(), OTHER_PLACE.longitude(), OTHER_PLACE.battery(),
                otherAttributes);
        out.printf(Locale.ROOT, "Groupcast: %d members of %s and %d other nodes (%s) on %d gateway(s)%n", members,
                group, others, protocol.protocol, Math.max(gateways.size(), mqttGateways.size()));
        Topics topics = new Topics(topicPrefix, Topics.DEFAULT.appPrefix());
        Set<String> grouped = ConcurrentHashMap.newKeySet();
        try (TopicFollower advertisements = new TopicFollower(bootstrap, topics.groups(), GroupAdvertisement.class,
                a -> {
                    if (a.definerId().equals(definer)) {
                        grouped.add(a.mnId());
                    }
                }, out);
             SimulatedNodes fleet = SimulatedNodes.open(protocol.path(), stack, total, (nodes, node, messageId,
                                                                                         payload) -> {
                 Arrivals arrivals = messageId == null ? null : byMessage.get(messageId.toString());
                 if (arrivals != null) {
                     arrivals.arrived(node, System.nanoTime());
                 }
             });
             CoreMessenger app = CoreMessenger.connect(bootstrap, topics, "perf-groupcast")) {
            RoundTrips reports = new RoundTrips(total);
            FleetProgress progress = new FleetProgress(reports, fleet::connected, total, total, out,
                    () -> String.format(Locale.ROOT, "  grouped %d/%d", grouped.size(), total));
            long start = System.nanoTime();
            fleet.connectAll((long) (connectIntervalMs * 1000));
            Fleet.waitFor(() -> fleet.connected() >= total, 180, progress);
            out.printf(Locale.ROOT, "%n%d of %d nodes connected in %.1f s; reporting context at %d/s...%n",
                    fleet.connected(), total, (System.nanoTime() - start) / 1e9, reportsPerSecond);
            // Why paced: all at once, the reports of 25,000 nodes waited over 5 s for their sockets' congestion
            // windows, the SDK shed them, and 11,000 nodes were never grouped.
            Schedule.run(total, 1, 60.0 * reportsPerSecond / total, Schedule.Arrivals.CONSTANT, (node, seq) ->
                    fleet.reportContext(node, channel, node < members ? memberContext : otherContext), reports.sent,
                    progress);
            Fleet.waitFor(() -> grouped.size() >= total, 180, progress);
            out.printf("%nThe %s definer grouped %d of %d nodes%s%n", definer, grouped.size(), total,
                    fleet.unsent() == 0 ? "" : " (" + fleet.unsent() + " reports shed or refused, handed back unsent)");

            // Why more than one: a groupcast goes to the members the delivery job has indexed when it arrives,
            // and the advertisements just written may still be on their way there; and the first groupcasts
            // after a start run while the C2 compilers of Flink and the gateways still compile that path
            // (perf/README.md, "Groupcast, warm"): the same warm-up on its own load as every other run.
            for (int attempt = 1; attempt <= warmUps + MORE_WARM_UPS; attempt++) {
                Arrivals warmUp = send(app, group);
                await(warmUp, progress);
                out.printf(Locale.ROOT, "%nWarm-up groupcast %d: %d of %d members in %.0f ms%n", attempt,
                        warmUp.delivered(), members, warmUp.lastMs());
                if (attempt >= warmUps && warmUp.delivered() >= members) {
                    break;
                }
            }
            // Why the idle CPU first: 100,000 connected nodes keep the gateways and the simulator busy with keepalives,
            // which a slow groupcast would otherwise count as its own.
            Map<String, Integer> processes = ProcessSampler.stackProcesses(pidsDir);
            CpuTimes idleFrom = CpuTimes.now(processes);
            Thread.sleep(idleSeconds * 1000L); // a measuring window, not a wait on a condition
            Map<String, Double> idlePercent = CpuTimes.now(processes).percentSince(idleFrom);
            List<Arrivals> runs = new ArrayList<>();
            Map<String, Long> cpuMs = new LinkedHashMap<>();
            double seconds = 0;
            long deliveries = 0;
            for (int i = 1; i <= timed; i++) {
                CpuTimes before = CpuTimes.now(processes);
                Arrivals run = send(app, group);
                await(run, progress);
                CpuTimes after = CpuTimes.now(processes);
                seconds += after.secondsSince(before);
                after.cpuMsSince(before).forEach((name, ms) -> cpuMs.merge(name, ms, Long::sum));
                deliveries += run.delivered();
                Thread.sleep(2_000); // room for a late duplicate or an extra before the next one
                Histogram latency = run.latency();
                out.printf(Locale.ROOT, "%nTimed groupcast %d of %d: %d of %d members, first after %.1f ms, median %.1f ms, "
                                + "p99 %.1f ms, last %.1f ms%n", i, timed, run.delivered(), members,
                        latency.getMinValue() / 1000.0, latency.getValueAtPercentile(50) / 1000.0,
                        latency.getValueAtPercentile(99) / 1000.0, run.lastMs());
                runs.add(run);
            }
            StringBuilder cpu = new StringBuilder();
            StringBuilder readable = new StringBuilder();
            long delivered = Math.max(1, deliveries);
            double timedSeconds = seconds;
            cpuMs.forEach((name, ms) -> {
                double idle = idlePercent.getOrDefault(name, 0.0);
                double all = ms * 1000.0 / delivered;
                double busy = (ms - idle * 10 * timedSeconds) * 1000 / delivered; // % of a core over s: % x 10 ms
                cpu.append(String.format(Locale.ROOT, " cpu_us_per_delivery_%s=%.1f cpu_us_per_delivery_with_idle_%s=%.1f",
                        name, busy, name, all));
                readable.append(String.format(Locale.ROOT, "%n  %-16s %8.1f µs a delivery, %8.1f with its idle CPU (idle: "
                        + "%.1f%% of a core)", name, busy, all, idle));
            });
            // Why both: traffic stands in for keepalives, so a node's idle work partly stops while it takes a groupcast;
            // the truth is between the two figures.
            out.printf(Locale.ROOT, "%nCPU per delivery over the timed groupcasts, each process's idle CPU taken out "
                    + "and not:%s%n", readable);
            Arrivals slowest = runs.stream().max(Comparator.comparingDouble(Arrivals::slowness)).orElseThrow();
            double[] lastMs = runs.stream().mapToDouble(Arrivals::lastMs).sorted().toArray();
            long extra = runs.stream().mapToLong(Arrivals::extra).sum();
            double perSecond = slowest.lastMs() <= 0 ? 0 : slowest.delivered() / (slowest.lastMs() / 1000.0);
            out.printf(Locale.ROOT, "RESULT members=%d timed=%d delivered=%d missed=%d extra=%d last_ms=%.0f "
                            + "last_ms_median=%.0f per_s=%.0f%s%n", members, timed, slowest.delivered(),
                    members - slowest.delivered(), extra, slowest.lastMs(), lastMs[lastMs.length / 2], perSecond, cpu);
            boolean exact = extra == 0 && runs.stream().allMatch(r -> r.delivered() == members);
            return exact ? 0 : 1;
        }
    }

    private Arrivals send(CoreMessenger app, String group) {
        Arrivals arrivals = new Arrivals(members, System.nanoTime());
        String id = java.util.UUID.randomUUID().toString();
        byMessage.put(id, arrivals);
        app.send(new io.ckc.protocol.records.Groupcast(id, app.sender(), group, new byte[] {2},
                Duration.ofMinutes(5).toMillis(), System.currentTimeMillis(), false));
        app.flush();
        return arrivals;
    }

    /** Until every member has it, or nothing arrived for the drain time. */
    private void await(Arrivals arrivals, Runnable progress) throws InterruptedException {
        Fleet.waitUntilDoneOrQuiet(() -> arrivals.delivered() >= members, arrivals::delivered, drainSeconds, progress);
    }

    /** Who got one groupcast and when: members are the nodes below {@code members}. */
    private static final class Arrivals {
        private final int members;
        private final long sentNanos;
        private final BitSet got = new BitSet();
        private final Histogram latency = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
        private final AtomicLong extra = new AtomicLong();
        private long delivered;
        private long lastNanos;

        Arrivals(int members, long sentNanos) {
            this.members = members;
            this.sentNanos = sentNanos;
        }

        synchronized void arrived(int node, long nanos) {
            if (node >= members || got.get(node)) {
                extra.incrementAndGet();
                return;
            }
            got.set(node);
            delivered++;
            lastNanos = Math.max(lastNanos, nanos);
            latency.recordValue(Math.max(0, TimeUnit.NANOSECONDS.toMicros(nanos - sentNanos)));
        }

        synchronized long delivered() {
            return delivered;
        }

        long extra() {
            return extra.get();
        }

        synchronized double lastMs() {
            return delivered == 0 ? 0 : (lastNanos - sentNanos) / 1e6;
        }

        /** A groupcast that missed members is slower than any that reached them all. */
        synchronized double slowness() {
            return delivered < members ? Double.POSITIVE_INFINITY : lastMs();
        }

        synchronized Histogram latency() {
            return latency.copy();
        }
    }
}
