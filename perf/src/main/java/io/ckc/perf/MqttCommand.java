package io.ckc.perf;

import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code perf mqtt}: the echo round trip of MQTT 5 devices on CKC beside CKC's UDP nodes and beside a plain Mosquitto
 * broker with an echo client, in one run. Each path in turn: a fixed load ({@code --rate} msg/s for
 * {@code --seconds}) for its RTT p50/p99 and the CPU of every process, then the stepped load to its saturation (p99
 * above 100 ms or a loss); last, the idle connections one server process holds: {@code --idle} MQTT devices
 * connected to the CKC gateway and then to Mosquitto, with the server's resident memory (and the gateway's live heap
 * after a full collection) per connection. One {@code RESULT} line per phase and path.
 */
@Command(name = "mqtt", mixinStandardHelpOptions = true,
        description = "MQTT devices on CKC beside UDP nodes and beside Mosquitto: RTT, saturation, CPU, idle connections.")
final class MqttCommand implements Callable<Integer> {

    @Option(names = "--paths", split = ",", defaultValue = "mqtt,ckc,mosquitto",
            description = "Paths, in order: mqtt (MQTT devices on CKC), ckc (UDP nodes on CKC), ckc-in-job (UDP nodes answered inside the delivery job), kafka (the bare-Kafka echo), mosquitto (default ${DEFAULT-VALUE})")
    List<String> paths;

    @Option(names = "--nodes", defaultValue = "1000", description = "Devices or nodes per path (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--rate", defaultValue = "1000", description = "The fixed load, messages per second (default ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--seconds", defaultValue = "30", description = "How long the fixed load runs (default ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--path-warmup-seconds", defaultValue = "15", description = "Load at the fixed rate before each "
            + "path's measured seconds, not counted: every path measured warm (default ${DEFAULT-VALUE})")
    int pathWarmupSeconds;

    @Option(names = "--start", defaultValue = "2000", description = "First stepped level, msg/s (default ${DEFAULT-VALUE})")
    double start;

    @Option(names = "--step", defaultValue = "2000", description = "Rise per stepped level, msg/s (default ${DEFAULT-VALUE})")
    double step;

    @Option(names = "--max-steps", defaultValue = "10", description = "Stepped levels at most; 0 skips the stepped load (default ${DEFAULT-VALUE})")
    int maxSteps;

    @Option(names = "--warmup-seconds", defaultValue = "5", description = "Seconds to a steady state at each level (default ${DEFAULT-VALUE})")
    int warmupSeconds;

    @Option(names = "--samples", defaultValue = "10", description = "One-second samples per level (default ${DEFAULT-VALUE})")
    int samples;

    @Option(names = "--idle", defaultValue = "10000", description = "Idle MQTT connections to hold on each server; 0 skips (default ${DEFAULT-VALUE})")
    int idle;

    @Option(names = "--connect-burst", defaultValue = "2000", description = "UDP nodes that connect all at once before "
            + "the ckc path's load, timed to the last: sessions opened per second, handshakes included where the "
            + "gateways authenticate; 0 skips (default ${DEFAULT-VALUE})")
    int connectBurst;

    @Option(names = "--drain-seconds", defaultValue = "10", description = "Wait this long without progress for the last echoes (default ${DEFAULT-VALUE})")
    int drainSeconds;

    @Mixin
    StackOptions stack = new StackOptions();

    /** The fixed load's figures, one row per path and process. */
    static final String FIXED_CSV = "mqtt-fixed.csv";
    /** The idle connections' figures, one row per server. */
    static final String IDLE_CSV = "mqtt-idle.csv";

    PrintStream out = System.out;
    private final List<String> idleRows = new ArrayList<>(
            List.of("server,connections,rss_before_mb,rss_after_mb,rss_per_connection_kb,heap_per_connection_kb"));

    @Override
    public Integer call() throws Exception {
        Results results = new Results(stack.resultsDir);
        List<String> fixedRows = new ArrayList<>();
        if (paths.contains(Results.CKC) && connectBurst > 0) {
            connectBurst();
        }
        for (String path : paths) {
            String missing = path.equals(Results.MOSQUITTO) ? Mosquitto.unavailable(stack.mosquitto) : null;
            if (missing != null) {
                out.println("The mosquitto path is skipped: " + missing);
                continue;
            }
            try (LoadPath target = LoadPath.open(path, stack, nodes, out);
                 ProcessSampler sampler = new ProcessSampler(ProcessSampler.processes(stack.pidsDir, target))) {
                int nextSeq = fixedLoad(path, target, sampler, fixedRows);
                if (maxSteps > 0) {
                    saturation(path, target, results, nextSeq);
                }
                results.writeCpu(results.dir().resolve("cpu-stepped-" + path + ".csv"), sampler.samples());
            }
        }
        Files.write(results.dir().resolve(FIXED_CSV), fixedRows);
        if (idle > 0) {
            idleConnections();
            Files.write(results.dir().resolve(IDLE_CSV), idleRows);
        }
        return 0;
    }

    /** {@link #connectBurst} UDP nodes connecting at once: how fast the gateway opens sessions, until the last. */
    private void connectBurst() throws Exception {
        try (Fleet burst = new Fleet(connectBurst, stack.gatewayAddresses(), stack.ioThreads)) {
            long started = System.nanoTime();
            burst.connectAll(0);
            long deadline = started + TimeUnit.SECONDS.toNanos(180);
            while (burst.connected.get() < connectBurst && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            out.printf(Locale.ROOT, "RESULT path=ckc phase=connect nodes=%d connected=%d seconds=%.2f "
                    + "sessions_per_s=%.0f authenticated=%s%n", connectBurst, burst.connected.get(), seconds,
                    burst.connected.get() / seconds, FleetCredentials.current() != null);
        }
    }

    /** The fixed load on one path: its RTT and the CPU of each process meanwhile. Returns the next sequence number. */
    private int fixedLoad(String path, LoadPath target, ProcessSampler sampler, List<String> rows) throws Exception {
        RoundTrips trips = target.trips();
        int[] lastSeq = new int[1];
        Schedule.Send send = (node, seq) -> {
            lastSeq[0] = Math.max(lastSeq[0], seq);
            target.send(node, seq);
        };
        Schedule.runFor(nodes, pathWarmupSeconds, rate * 60 / nodes, Schedule.Arrivals.CONSTANT, send, trips.sent,
                () -> { });
        trips.awaitEchoes(drainSeconds, () -> { });
        long sentBefore = trips.sent.get();
        long deliveredBefore = trips.delivered.get();
        Histogram warm = trips.total().copy();
        int base = lastSeq[0] + 1;
        double began = sampler.elapsedSeconds();
        Schedule.runFor(nodes, seconds, rate * 60 / nodes, Schedule.Arrivals.CONSTANT,
                (node, seq) -> send.send(node, base + seq), trips.sent, () -> { });
        trips.awaitEchoes(drainSeconds, () -> { });
        double ended = sampler.elapsedSeconds();
        Histogram rtt = trips.total().copy();
        rtt.subtract(warm);
        Map<String, Double> cpu = ProcessSampler.usage(sampler.samples().stream()
                        .filter(s -> s.seconds() > began && s.seconds() <= ended).toList()).stream()
                .collect(Collectors.toMap(ProcessSampler.Usage::component, ProcessSampler.Usage::meanCpuPercent,
                        (a, b) -> a, java.util.LinkedHashMap::new));
        long sent = trips.sent.get() - sentBefore;
        long delivered = trips.delivered.get() - deliveredBefore;
        // each process's CPU as a share of a core, and as microseconds of CPU per round trip at `rate` a second
        String cpuFields = cpu.entrySet().stream().map(e -> String.format(Locale.ROOT, "cpu_%s_pct=%.1f us_%s=%.1f",
                e.getKey().replace('-', '_'), e.getValue(), e.getKey().replace('-', '_'), e.getValue() / 100 / rate * 1e6))
                .collect(Collectors.joining(" "));
        // the CPU of every process sampled, per round trip: percent of a core over the run, at `rate` a second
        double cpuUsPerMessage = cpu.values().stream().mapToDouble(Double::doubleValue).sum() / 100 / rate * 1e6;
        out.printf(Locale.ROOT, "RESULT path=%s phase=fixed offered_per_s=%.0f nodes=%d sent=%d delivered=%d "
                        + "rtt_p50_ms=%.2f rtt_p99_ms=%.2f rtt_mean_ms=%.2f cpu_us_per_msg=%.0f %s%n", path, rate,
                target.connected(), sent, delivered, rtt.getValueAtPercentile(50) / 1000.0,
                rtt.getValueAtPercentile(99) / 1000.0, rtt.getMean() / 1000.0, cpuUsPerMessage, cpuFields);
        if (rows.isEmpty()) {
            rows.add("path,offered_per_s,nodes,sent,delivered,rtt_p50_ms,rtt_p99_ms,rtt_mean_ms,process,cpu_pct");
        }
        cpu.forEach((process, percent) -> rows.add(String.format(Locale.ROOT, "%s,%.0f,%d,%d,%d,%.2f,%.2f,%.2f,%s,%.1f",
                path, rate, target.connected(), sent, delivered, rtt.getValueAtPercentile(50) / 1000.0,
                rtt.getValueAtPercentile(99) / 1000.0, rtt.getMean() / 1000.0, process, percent)));
        return lastSeq[0] + 1;
    }

    /** The stepped load from the fixed load's last sequence number on, to saturation. */
    private void saturation(String path, LoadPath target, Results results, int firstSeq) throws Exception {
        SteppedCommand.Sweep sweep = SteppedCommand.levels(nodes, start, step, maxSteps, warmupSeconds, samples,
                Schedule.Arrivals.POISSON, drainSeconds, out).sweep(path, target, results, firstSeq);
        List<Results.StepRow> rows = sweep.rows();
        Optional<Results.StepRow> saturated = sweep.saturated();
        Optional<Results.StepRow> lastGood = rows.stream()
                .filter(r -> !r.saturated(ReportCommand.SATURATION_P99_MS)).reduce((a, b) -> b);
        out.printf(Locale.ROOT, "RESULT path=%s phase=saturation saturation_offered_per_s=%s last_good_offered_per_s=%s "
                        + "last_good_delivered_per_s=%s%n", path,
                saturated.map(r -> String.format(Locale.ROOT, "%.0f", r.offeredPerSecond())).orElse("none"),
                lastGood.map(r -> String.format(Locale.ROOT, "%.0f", r.offeredPerSecond())).orElse("none"),
                lastGood.map(r -> String.format(Locale.ROOT, "%.0f", r.throughput().mean())).orElse("none"));
    }

    /** Idle devices on the CKC gateway and on Mosquitto: the server's memory per connection. */
    private void idleConnections() throws Exception {
        if (!stack.mqttGateways.isEmpty()) {
            Map.Entry<String, Integer> gateway = ProcessSampler.stackProcesses(stack.pidsDir).entrySet().stream()
                    .filter(e -> e.getKey().startsWith("gateway")).findFirst().orElse(null);
            if (gateway == null) {
                out.println("No gateway pid in " + stack.pidsDir + ": the idle connections of CKC are not measured");
            } else {
                idleOn("ckc-gateway", gateway.getValue(), true, List.of(stack.mqttAddresses().get(0)));
            }
        }
        String missing = Mosquitto.unavailable(stack.mosquitto);
        if (missing != null) {
            out.println("Mosquitto's idle connections are not measured: " + missing);
            return;
        }
        try (Mosquitto broker = Mosquitto.start(stack.mosquitto, stack.mosquittoPort,
                stack.resultsDir.resolve("mosquitto"))) {
            idleOn("mosquitto", broker.pid(), false, List.of(broker.address()));
        }
    }

    /**
     * {@code --idle} devices connected to one server and held there: its resident memory per connection (for a JVM an
     * upper bound: it holds the garbage of the connections' handshakes too), and for a JVM its live heap per
     * connection, read after a full collection.
     */
    private void idleOn(String server, int pid, boolean jvm, List<InetSocketAddress> address) throws Exception {
        try (JvmProbe probe = new JvmProbe()) {
            // Live heap after a full collection; resident memory read apart, without one, just after it (before) and just
            // before the next (after): a collection may give heap back to the system, which RSS would count as saved.
            JvmProbe.Look heapBefore = jvm ? probe.look(pid) : null;
            double rssBefore = probe.residentMb(pid);
            int held;
            long busy;
            double rssAfter;
            JvmProbe.Look heapAfter;
            MqttFleet idleFleet = new MqttFleet(idle, address, stack.ioThreads).keepAlive(300);
            try (MqttFleet fleet = server.equals("mosquitto") ? idleFleet.onMosquitto() : idleFleet) {
                fleet.connectAll(200);
                Fleet.waitFor(() -> fleet.connected.get() + fleet.errors.get() >= idle, 300, () -> { });
                held = fleet.connected.get();
                busy = fleet.busyConnects.get();
                rssAfter = probe.residentMb(pid);
                heapAfter = jvm ? probe.look(pid) : null;
            }
            JvmProbe.Look before = new JvmProbe.Look(heapBefore == null ? Double.NaN : heapBefore.heapAfterGcMb(),
                    rssBefore, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
            JvmProbe.Look after = new JvmProbe.Look(heapAfter == null ? Double.NaN : heapAfter.heapAfterGcMb(),
                    rssAfter, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
            double rssKb = (after.rssMb() - before.rssMb()) * 1024 / Math.max(1, held);
            double heapKb = (after.heapAfterGcMb() - before.heapAfterGcMb()) * 1024 / Math.max(1, held);
            idleRows.add(String.format(Locale.ROOT, "%s,%d,%.1f,%.1f,%.2f,%s", server, held, before.rssMb(),
                    after.rssMb(), rssKb, Double.isNaN(heapKb) ? "" : String.format(Locale.ROOT, "%.2f", heapKb)));
            out.printf(Locale.ROOT, "RESULT phase=idle server=%s connections=%d of=%d busy_retries=%d "
                            + "rss_before_mb=%.1f rss_after_mb=%.1f rss_per_connection_kb=%.2f heap_per_connection_kb=%s%n",
                    server, held, idle, busy, before.rssMb(), after.rssMb(), rssKb, Double.isNaN(heapKb) ? "n/a"
                            : String.format(Locale.ROOT, "%.2f", heapKb));
        }
    }

}
