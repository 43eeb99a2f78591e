package io.ckc.perf;

import io.ckc.client.ClientConfig;
import oshi.SystemInfo;
import oshi.software.os.OSProcess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code perf capacity}: how many idle connected nodes one gateway holds, and what each costs it.
 * Nodes connect in batches; after each batch settles, the gateway's CPU while the nodes sat idle, its live heap
 * (after a full collection the probe asks for: {@link JvmProbe}; the lowest of a few seconds of heap samples, read
 * before, still held garbage and swung by ±100 MB from batch to batch) and its resident memory are read, and the
 * simulator's own live heap beside them: what the other end of each session costs. Idle CPU is process CPU time over one
 * keepalive period of the nodes (each node pings once in it), in % of one core: pings, timers,
 * reports. It is measured only after the settle time, so that it holds none of the batch's
 * connections (their Kafka writes, first frames and the garbage they leave). A batch that does not
 * fully connect, or nodes that drop while idle, end the run. With {@code --pids-dir}, the same window's CPU of the
 * Flink and Kafka processes goes beside the gateway's: what the gateway's load and connection reports of that many
 * nodes cost the PoA manager and the broker. {@code --protocol mqtt} holds MQTT 5 devices on the
 * gateway's MQTT port instead, {@code mixed} half of each. Ends with {@code RESULT held=.. heap_per_mn_bytes=..
 * rss_per_mn_bytes=.. cpu_per_10k_mn_percent=.. flink_cpu_per_10k_mn_percent=.. simulator_heap_per_mn_bytes=..
 * protocol=..} (the slopes over the batches).
 */
@Command(name = "capacity", mixinStandardHelpOptions = true,
        description = "Connect idle nodes to one gateway in batches and measure what each costs it.")
final class CapacityCommand implements Callable<Integer> {

    /**
     * A batch that connects slower than this is given up. Why: a gateway holding many nodes answers their keepalives
     * while the next batch's handshakes (1.5 ms of CPU at each end) share the machine; about 540 a second connected on
     * 2026-11-28, and a batch of 100,000 at a thousand a second, the earlier allowance, could never finish in time.
     */
    private static final int SLOWEST_CONNECTS_PER_SECOND = 200;

    /** The gateway's name among the processes whose idle CPU is measured. */
    private static final String GATEWAY = "gateway";

    @Option(names = "--gateway", required = true, description = "The gateway's UDP address, host:port")
    String gateway;

    @Option(names = "--mqtt-gateway", paramLabel = "HOST:PORT",
            description = "The gateway's MQTT address (--protocol mqtt or mixed)")
    String mqttGateway;

    @Mixin
    ProtocolOption protocol = new ProtocolOption();

    @Option(names = "--gateway-pid-file", description = "The pid file of the gateway's process (.ckc/pids/gateways.pid), for its resident memory")
    Path pidFile;

    @Option(names = "--pids-dir", description = "The stack's pid files (.ckc/pids), for the idle CPU of Flink and Kafka")
    Path pidsDir;

    @Option(names = "--batch", description = "Nodes per batch (default a tenth of --nodes)")
    Integer batch;

    @Option(names = {"--nodes", "--max"}, defaultValue = "100000", description = "Nodes at most (default ${DEFAULT-VALUE}; the goal)")
    int max;

    @Option(names = "--connect-interval-us", defaultValue = "100", description = "Pause between two connections, µs (default ${DEFAULT-VALUE})")
    long connectIntervalMicros;

    @Option(names = "--settle-seconds", defaultValue = "5", description = "Idle time after each batch before measuring (default ${DEFAULT-VALUE})")
    int settleSeconds;

    @Option(names = "--keepalive-seconds", defaultValue = "15", description = "How often an idle UDP node that heard "
            + "nothing pings its gateway (default ${DEFAULT-VALUE}, the SDK's): the largest part of an idle node's cost")
    int keepaliveSeconds;

    @Option(names = "--measure-seconds", description = "Idle CPU is measured over this long (default the keepalive, so each node pings once)")
    Integer measureSeconds;

    @Option(names = "--io-threads", defaultValue = "2", description = "Simulator I/O threads (default ${DEFAULT-VALUE})")
    int ioThreads;

    @Option(names = "--csv", description = "Write the rows here too")
    Path csv;

    PrintStream out = System.out;

    /** One measurement after a batch; the idle CPU of Flink's processes (all of them) and Kafka's, NaN if unknown. */
    record Row(int nodes, int connected, double heapMb, double rssMb, double idleCpuPercent, double simulatorHeapMb,
               double flinkIdleCpuPercent, double kafkaIdleCpuPercent) {
    }

    @Override
    public Integer call() throws Exception {
        int perBatch = batch != null ? batch : Math.max(1, (max + 9) / 10);
        long gatewayPid = pidFile == null ? -1 : Long.parseLong(Files.readString(pidFile).trim());
        OSProcess gatewayProcess = gatewayPid < 0 ? null : new SystemInfo().getOperatingSystem().getProcess((int) gatewayPid);
        long simulatorPid = ProcessHandle.current().pid();
        Map<String, Integer> stack = ProcessSampler.stackProcesses(pidsDir);
        List<Row> rows = new ArrayList<>();
        int held = 0;
        try (JvmProbe probe = new JvmProbe()) {
            rows.add(measure(probe, 0, 0, gatewayPid, gatewayProcess, simulatorPid, stack));
            out.printf(Locale.ROOT, "%8s %10s %10s %10s %10s %14s %10s %10s%n", "nodes", "connected", "heap MB", "RSS MB",
                    "idle CPU %", "simulator MB", "Flink %", "Kafka %");
            print(rows.get(0));
            try (IdleNodes fleet = idleNodes()) {
                for (int from = 0; from < max; from += perBatch) {
                    int to = Math.min(max, from + perBatch);
                    long started = System.nanoTime();
                    fleet.connect(from, to);
                    int target = to;
                    Fleet.waitFor(() -> fleet.connected() >= target, 120 + perBatch / SLOWEST_CONNECTS_PER_SECOND,
                            () -> { });
                    out.printf(Locale.ROOT, "batch to %d connected in %.1f s%n", to, (System.nanoTime() - started) / 1e9);
                    Row row = measure(probe, to, fleet.connected(), gatewayPid, gatewayProcess, simulatorPid, stack);
                    rows.add(row);
                    print(row);
                    if (row.connected() < to) {
                        out.printf("Only %d of %d nodes stayed connected: the gateway holds about %d%n", row.connected(), to,
                                row.connected());
                        held = row.connected();
                        break;
                    }
                    held = to;
                }
            }
        }
        double heapPerMn = slope(rows, Row::heapMb) * 1048576;
        double rssPerMn = slope(rows, Row::rssMb) * 1048576;
        double cpuPer10k = slope(rows, Row::idleCpuPercent) * 10_000;
        double simulatorHeapPerMn = slope(rows, Row::simulatorHeapMb) * 1048576;
        double flinkCpuPer10k = slope(rows, Row::flinkIdleCpuPercent) * 10_000;
        if (csv != null) {
            List<String> lines = new ArrayList<>(List.of("nodes,connected,heap_mb,rss_mb,idle_cpu_percent,simulator_heap_mb,"
                    + "flink_idle_cpu_percent,kafka_idle_cpu_percent"));
            rows.forEach(r -> lines.add(String.format(Locale.ROOT, "%d,%d,%.1f,%.1f,%.2f,%.1f,%.2f,%.2f", r.nodes(),
                    r.connected(), r.heapMb(), r.rssMb(), r.idleCpuPercent(), r.simulatorHeapMb(),
                    r.flinkIdleCpuPercent(), r.kafkaIdleCpuPercent())));
            Files.createDirectories(csv.toAbsolutePath().getParent());
            Files.write(csv, lines, StandardCharsets.UTF_8);
        }
        Row last = rows.get(rows.size() - 1);
        out.printf(Locale.ROOT, "RESULT held=%d goal=%d heap_per_mn_bytes=%.0f rss_per_mn_bytes=%.0f gateway_heap_mb=%.0f "
                + "gateway_rss_mb=%.0f cpu_per_10k_mn_percent=%.2f gateway_idle_cpu_percent=%.1f "
                + "flink_cpu_per_10k_mn_percent=%.2f flink_idle_cpu_percent=%.1f kafka_idle_cpu_percent=%.1f "
                + "simulator_heap_per_mn_bytes=%.0f simulator_heap_mb=%.0f protocol=%s%n", held, max, heapPerMn, rssPerMn,
                last.heapMb(), last.rssMb(), cpuPer10k, last.idleCpuPercent(), flinkCpuPer10k,
                last.flinkIdleCpuPercent(), last.kafkaIdleCpuPercent(), simulatorHeapPerMn, last.simulatorHeapMb(),
                protocol.protocol);
        return held >= max ? 0 : 1;
    }

    /**
     * One row: the gateway's idle CPU first (a collection asked for before it would leave its work in the window), then
     * both live heaps and the gateway's resident memory.
     */
    private Row measure(JvmProbe probe, int nodes, int connected, long gatewayPid, OSProcess gatewayProcess,
                        long simulatorPid, Map<String, Integer> stack) throws InterruptedException {
        Map<String, Double> idleCpu = idleCpuPercent(gatewayPid, stack);
        double gatewayHeap = gatewayPid < 0 ? Double.NaN : probe.look(gatewayPid).heapAfterGcMb();
        return new Row(nodes, connected, gatewayHeap, rssMb(gatewayProcess), idleCpu.getOrDefault(GATEWAY, Double.NaN),
                probe.look(simulatorPid).heapAfterGcMb(), sumOf(idleCpu, "flink"), sumOf(idleCpu, "kafka"));
    }

    /** The CPU of the processes whose names start with {@code prefix}; NaN if there is none. */
    private static double sumOf(Map<String, Double> cpu, String prefix) {
        return cpu.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToDouble(Map.Entry::getValue)
                .reduce(Double::sum).orElse(Double.NaN);
    }

    /** The run's idle nodes, connected a batch at a time: nodes {@code from} to {@code to} (excluded). */
    private interface IdleNodes extends AutoCloseable {
        void connect(int from, int to) throws InterruptedException;

        int connected();
    }

    /**
     * UDP nodes (keepalive 15 s), MQTT 5 devices (keep-alive twice the measuring time, so each sends one PINGREQ in
     * it), or both: a mixed run's even numbers are UDP nodes, its odd ones MQTT devices.
     */
    private IdleNodes idleNodes() throws InterruptedException {
        if (!protocol.path().equals(Results.CKC) && mqttGateway == null) {
            throw new IllegalArgumentException("--protocol " + protocol.protocol + " needs --mqtt-gateway");
        }
        boolean mixed = protocol.path().equals(Results.MIXED);
        int udpCount = switch (protocol.path()) {
            case Results.CKC -> max;
            case Results.MQTT -> 0;
            default -> (max + 1) / 2;
        };
        long keepaliveMs = keepaliveSeconds * 1000L;
        // the SDK's proportion (15 s, silent at 20 s): a third of the keepalive to hear an answer to its probes
        ClientConfig idle = ClientConfig.DEFAULT.withLiveness(keepaliveMs, keepaliveMs + keepaliveMs / 3,
                ClientConfig.DEFAULT.connectAttempts());
        Fleet udp = udpCount == 0 ? null : new Fleet(udpCount, List.of(DemoCommand.address(gateway)), ioThreads,
                f -> f.new Listener(), idle);
        MqttFleet mqtt = udpCount == max ? null : new MqttFleet(max - udpCount,
                List.of(DemoCommand.address(mqttGateway)), ioThreads).keepAlive(2 * measureSeconds());
        return new IdleNodes() {
            public void connect(int from, int to) throws InterruptedException {
                // of nodes from..to, how many are UDP nodes below each end: all, none, or the even numbers
                int udpFrom = mixed ? (from + 1) / 2 : udp == null ? 0 : from;
                int udpTo = mixed ? (to + 1) / 2 : udp == null ? 0 : to;
                if (udp != null) {
                    udp.connect(udpFrom, udpTo, connectIntervalMicros);
                }
                if (mqtt != null) {
                    mqtt.connect(from - udpFrom, to - udpTo, connectIntervalMicros);
                }
            }

            public int connected() {
                return (udp == null ? 0 : udp.connected.get()) + (mqtt == null ? 0 : mqtt.connected.get());
            }

            public void close() throws Exception {
                if (mqtt != null) {
                    mqtt.close();
                }
                if (udp != null) {
                    udp.close();
                }
            }
        };
    }

    private void print(Row r) {
        out.printf(Locale.ROOT, "%8d %10d %10.1f %10.1f %10.1f %14.1f %10.1f %10.1f%n", r.nodes(), r.connected(), r.heapMb(),
                r.rssMb(), r.idleCpuPercent(), r.simulatorHeapMb(), r.flinkIdleCpuPercent(), r.kafkaIdleCpuPercent());
    }

    private int measureSeconds() {
        return measureSeconds != null ? measureSeconds : keepaliveSeconds;
    }

    /**
     * After the settle time, the CPU over the measuring time, only idle traffic running, in % of a core: of the gateway
     * (as {@link #GATEWAY}) and of the stack's other processes by their pid files' names.
     */
    private Map<String, Double> idleCpuPercent(long gatewayPid, Map<String, Integer> stack)
            throws InterruptedException {
        Thread.sleep(settleSeconds * 1000L); // a measuring pause, not a wait on a condition: connections are done
        Map<String, Integer> processes = new LinkedHashMap<>();
        if (gatewayPid >= 0) {
            processes.put(GATEWAY, (int) gatewayPid);
        }
        stack.forEach((name, pid) -> {
            if (!name.startsWith("gateway") && !name.equals(ProcessSampler.LOAD_GENERATOR)) {
                processes.put(name, pid);
            }
        });
        CpuTimes before = CpuTimes.now(processes);
        Thread.sleep(measureSeconds() * 1000L);
        return CpuTimes.now(processes).percentSince(before);
    }

    private static double rssMb(OSProcess process) {
        if (process == null) {
            return Double.NaN;
        }
        process.updateAttributes();
        return process.getResidentSetSize() / 1048576.0;
    }

    /** Least-squares slope of y against nodes. */
    static double slope(List<Row> rows, java.util.function.ToDoubleFunction<Row> y) {
        double n = 0;
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        for (Row r : rows) {
            double v = y.applyAsDouble(r);
            if (Double.isNaN(v)) {
                continue;
            }
            n++;
            sx += r.nodes();
            sy += v;
            sxx += (double) r.nodes() * r.nodes();
            sxy += r.nodes() * v;
        }
        double d = n * sxx - sx * sx;
        return d == 0 ? Double.NaN : (n * sxy - sx * sy) / d;
    }
}
