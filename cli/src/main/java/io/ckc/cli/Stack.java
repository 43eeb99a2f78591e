package io.ckc.cli;

import io.ckc.jobs.ops.FlinkRest;
import io.ckc.gateway.mqtt.DeviceCertificates;
import io.ckc.gateway.mqtt.GatewayKeystore;
import io.ckc.protocol.auth.CredentialStore;
import io.ckc.protocol.auth.Grants;
import io.ckc.protocol.auth.NodeKeys;
import io.ckc.protocol.kafka.TopicSetup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The stack on this machine: Kafka, the Flink jobs (embedded, or submitted to a cluster), the gateways;
 * brought up in a shape, found again by later commands, restarted when a command needs another shape or
 * the code changed, and stopped with nothing left behind.
 */
final class Stack {

    private final Home home;
    private final Processes processes;
    private final FlinkRuntime flink;
    /** What the gateways are told about authentication ({@link #security}), once the stack's shape is known. */
    private Map<String, String> security = Map.of();

    Stack(Home home) {
        this.home = home;
        this.processes = new Processes(home);
        this.flink = new FlinkRuntime(home, processes);
    }

    Processes processes() {
        return processes;
    }

    FlinkRuntime flink() {
        return flink;
    }

    private Path shapeFile() {
        return home.stackShape();
    }

    /** The fleet the simulator's nodes belong to in the stack's credential store. */
    static final String SIMULATOR_FLEET = "sim";

    /**
     * What the gateways are told about authentication: the credential store (made with the simulator's fleet if it
     * has none: the demo and the perf runs connect as its nodes), or, for an insecure stack, that there is none.
     */
    private Map<String, String> security(StackShape shape) {
        if (shape.insecure()) {
            Ckc.say("WARNING: the gateways run without authentication (--insecure): anyone who knows a node id can "
                    + "act as that node. For a perf baseline only.");
            return Map.of("CKC_INSECURE", "true");
        }
        Path store = home.credentials();
        if (!Files.exists(store) || CredentialStore.open(store).fleetKey(SIMULATOR_FLEET).isEmpty()) {
            CredentialStore.putFleet(store, SIMULATOR_FLEET, NodeKeys.newSecret(),
                    new Grants(List.of("app.*"), List.of("*")));
            Ckc.say("credential store " + store + ": added the simulator's fleet '" + SIMULATOR_FLEET + "'");
        }
        Path keystore = home.gatewayKeystore();
        Path authority = home.deviceAuthority();
        try {
            if (!Files.exists(keystore) || !Files.exists(GatewayKeystore.certificate(keystore))) {
                GatewayKeystore.selfSigned(keystore, LOCAL_KEYSTORE_PASSWORD);
            }
            if (!Files.exists(authority) || !Files.exists(GatewayKeystore.certificate(authority))) {
                DeviceCertificates.authority(authority, LOCAL_KEYSTORE_PASSWORD);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Ckc.Failure("interrupted");
        }
        return authenticating(home);
    }

    /**
     * The store, the TLS keystore and the devices' authority, as both the gateways and the simulator are told them.
     */
    private static Map<String, String> authenticating(Home home) {
        return Map.of("CKC_CREDENTIALS", home.credentials().toString(), "CKC_TLS_KEYSTORE",
                home.gatewayKeystore().toString(), "CKC_TLS_KEYSTORE_PASSWORD", LOCAL_KEYSTORE_PASSWORD,
                "CKC_TLS_CLIENT_CA", GatewayKeystore.certificate(home.deviceAuthority()).toString());
    }

    /**
     * The local stack's keystores (the gateways', the devices' authority's, the devices') are made by ./ckc up and
     * ./ckc credentials on this machine, on loopback: their password guards nothing.
     */
    static final String LOCAL_KEYSTORE_PASSWORD = "ckc-local";

    /**
     * The environment of a simulator run: the credential store when the running stack authenticates, so its nodes
     * prove the keys of the simulator's fleet; nothing for an insecure stack or none at all. On a stack whose Kafka
     * authenticates, the simulator's Kafka clients (the perf tools' applications and followers) are the operator.
     */
    static Map<String, String> simulatorEnvironment(Home home) {
        Optional<StackShape> shape = StackShape.load(home.stackShape());
        Map<String, String> env = new HashMap<>();
        if (shape.isPresent() && !shape.get().insecure() && Files.exists(home.credentials())) {
            env.putAll(authenticating(home));
            env.put("CKC_FLEET", SIMULATOR_FLEET);
        }
        if (shape.isPresent() && shape.get().kafkaAuth()) {
            env.putAll(new KafkaAuth(home).environment(KafkaAuth.ADMIN)); // its Kafka tools act as the operator
        }
        return env;
    }

    /** The running stack's shape, if one runs. */
    Optional<StackShape> running() {
        return processes.isRunning("kafka") ? StackShape.load(shapeFile()) : Optional.empty();
    }

    StackShape requireRunning() {
        return running().orElseThrow(() -> new Ckc.Failure("the stack is not up: ./ckc up first"));
    }

    /**
     * Brings the stack up and returns once an echo made the round trip through every gateway, Kafka and
     * both jobs, and a warm-up load has run (so the first measured messages do not pay for the JVMs'
     * compilation).
     */
    void up(StackShape shape, int warmUpSeconds) {
        Optional<StackShape> running = running();
        if (running.isPresent()) {
            Ckc.say("the stack is already up (" + running.get() + "); './ckc down' first to change it");
            return;
        }
        long started = System.nanoTime();
        Ckc.say("starting Kafka (KRaft) on " + KafkaBroker.BOOTSTRAP + "...");
        KafkaAuth auth = shape.kafkaAuth() ? new KafkaAuth(home) : null;
        if (auth != null) {
            Ckc.say("Kafka authenticates every client and authorizes each by its grants (--kafka-auth); credentials in "
                    + auth.dir());
        }
        new KafkaBroker(home, processes).start(auth == null ? null : auth.password(KafkaAuth.ADMIN));
        try (var admin = auth == null ? TopicSetup.admin(KafkaBroker.BOOTSTRAP) : auth.admin()) {
            KafkaBroker.createTopics(shape, admin);
        }
        if (auth != null) {
            auth.grantStack(shape);
        }
        flink.clearCheckpoints();
        if (shape.flinkUrl() == null) {
            Ckc.say("starting the Flink jobs on an embedded MiniCluster...");
            flink.startEmbedded(shape);
        } else {
            Ckc.say("submitting the Flink jobs to " + shape.flinkUrl() + "...");
            // --fresh: the broker is new (./ckc up formats it), so the jobs' last state names offsets it never had
            List<String> submit = new ArrayList<>(List.of("--flink", shape.flinkUrl(), "submit", "--fresh", "--jar",
                    home.jobsJar().toString(), "--"));
            submit.addAll(shape.stackFlags());
            if (JobsCli.run(submit) != 0) {
                throw new Ckc.Failure("cannot start the jobs on " + shape.flinkUrl());
            }
        }
        Ckc.say("starting " + shape.gateways() + " gateway(s), "
                + (shape.gatewayProcesses().equals("one") ? "in one JVM" : "a JVM each") + "...");
        security = security(shape);
        startGateways(shape);
        shape.save(shapeFile()); // before the probe: the simulator's nodes authenticate as the shape says
        Ckc.say("probing every gateway end to end, then at least " + warmUpSeconds
                + " s of warm-up load, until it answers fast...");
        int probe = Simulator.probe(home).run(List.of("probe", "--gateways", String.join(",", shape.gatewayAddresses()),
                "--warm-up-seconds", String.valueOf(warmUpSeconds), "--warm-up-nodes", "600"), null).exitCode();
        if (probe != 0) {
            throw new Ckc.Failure("the stack did not answer the probe (logs: " + home.logs + ")");
        }
        if (shape.monitoring()) {
            new Monitoring(home, processes).start(shape);
        }
        System.out.println(summary(shape, (System.nanoTime() - started) / 1_000_000_000));
    }

    private String summary(StackShape shape, long seconds) {
        StringBuilder gateways = new StringBuilder();
        StringBuilder metrics = new StringBuilder();
        for (int i = 0; i < shape.gateways(); i++) {
            gateways.append("gw-").append(i + 1).append(" udp://").append(shape.gatewayAddresses().get(i))
                    .append(shape.insecure() ? " mqtt://" : " mqtts://").append(shape.mqttAddresses().get(i))
                    .append(shape.insecure() ? " ws://127.0.0.1:" : " wss://127.0.0.1:")
                    .append(StackShape.FIRST_MQTT_WS_PORT + i).append("/mqtt  ");
            metrics.append("http://127.0.0.1:").append(StackShape.FIRST_METRICS_PORT + i).append("/metrics  ");
        }
        return "CKC is up (" + seconds + " s):\n"
                + "  Kafka          " + KafkaBroker.BOOTSTRAP + " (KRaft, pid " + processes.pid("kafka").orElse(-1L) + ")\n"
                + "  Flink          " + shape.flinkRest() + (shape.flinkUrl() == null ? " (embedded)" : "")
                + " - jobs delivery (x" + shape.deliveryParallelism() + "), poa-manager, echo (x" + shape.appParallelism()
                + "), group-definer-grid-cell" + (shape.jobFlags().isEmpty() ? "" : " with " + String.join(" ", shape.jobFlags())) + "\n"
                + "  Channels       " + String.join(", ", shape.allChannels()) + " (Kafka app.<channel>)\n"
                + "  Gateways       " + gateways + "\n"
                + "  Metrics        " + metrics + "\n"
                + (shape.monitoring() ? "  Prometheus     http://127.0.0.1:" + Monitoring.PORT
                        + " (dashboards: monitoring/grafana/dashboards; './ckc monitoring check')\n" : "")
                + "  Logs           " + home.logs + "\n"
                + "Stop it with: ./ckc down";
    }

    /**
     * The gateways of one machine run in one JVM by default: on two cores, three gateway JVMs had three times
     * the JIT, GC and threads, and configuration 8's p99 round trip was 348 and 741 ms against 140 and 88 ms
     * in one. {@code each}: a JVM per gateway, where one gateway must fail alone.
     */
    private void startGateways(StackShape shape) {
        if (shape.gatewayProcesses().equals("one")) {
            Map<String, String> env = gatewayEnvironment(processes.nativeMemoryEnv(), security, shape,
                    Map.of("CKC_GATEWAY_IDS", String.join(",", shape.gatewayIds()),
                            "CKC_KAFKA_BOOTSTRAP", KafkaBroker.BOOTSTRAP, "CKC_UDP_HOST", "127.0.0.1",
                            "CKC_UDP_PORT", String.valueOf(StackShape.FIRST_UDP_PORT),
                            "CKC_MQTT_PORT", String.valueOf(shape.firstMqttPort()),
                            "CKC_MQTT_WS_PORT", String.valueOf(StackShape.FIRST_MQTT_WS_PORT),
                            "CKC_METRICS_PORT", String.valueOf(StackShape.FIRST_METRICS_PORT)));
            env.putAll(kafkaPrincipal(shape, shape.gatewayIds()));
            processes.start("gateways", home.log("gateways"), env,
                    List.of("java", "-Xmx" + shape.gatewayHeap(), "-XX:+UseG1GC", processes.gcLog("gateways"), "-jar",
                            home.gatewayJar().toString()));
            for (String id : shape.gatewayIds()) {
                processes.awaitLog("gateways", home.log("gateways"), "Gateway " + id + " listening on udp",
                        Duration.ofSeconds(60));
            }
            return;
        }
        for (int i = 1; i <= shape.gateways(); i++) {
            launchGateway(shape, i);
        }
        for (int i = 1; i <= shape.gateways(); i++) {
            awaitGateway(i);
        }
    }

    /**
     * A gateway JVM's environment: the malloc of the stack's other long-running JVMs ({@code nativeMemory},
     * {@link Processes#nativeMemoryEnv()}), what it is told about authentication, the shape's settings, then its own
     * (ids and ports). Why the malloc: a gateway frees native memory on many threads too (Netty's event loops, the
     * Kafka clients' I/O threads). On glibc's, eight arenas a core, its resident memory beyond the code cache and
     * mapped files crept up 0.3 to 1 MB an hour, its live heap flat, in one to two gateways of three in each of three
     * soaks of 2026-12-01 (perf/results/2026-12-01-1557-soak, 2026-12-01-1730-soak and a 30-minute one). In that last
     * one, read from {@code /proc/<pid>/smaps} every 30 s, the Java heap's resident pages stayed at 73.8 MB from
     * minute 8 on, and malloc's arenas grew 0.6 to 1.4 MB from minute 12 to 32. On jemalloc the three gateways' were
     * flat or falling (perf/results/2026-12-01-1946-soak).
     */
    static Map<String, String> gatewayEnvironment(Map<String, String> nativeMemory, Map<String, String> security,
                                                  StackShape shape, Map<String, String> own) {
        Map<String, String> env = new HashMap<>(nativeMemory);
        env.putAll(security);
        env.putAll(shape.gatewayEnvironment());
        env.putAll(own);
        return env;
    }

    /** The Kafka principal's client settings of a gateways process that runs these gateways, on a stack with --kafka-auth. */
    private Map<String, String> kafkaPrincipal(StackShape shape, List<String> gatewayIds) {
        return shape.kafkaAuth() ? new KafkaAuth(home).environment(KafkaAuth.gatewayPrincipal(gatewayIds)) : Map.of();
    }

    /** Gateway {@code gw-i} in a JVM of its own, UDP, MQTT and metrics ports by its number. */
    private void launchGateway(StackShape shape, int i) {
        Map<String, String> env = gatewayEnvironment(processes.nativeMemoryEnv(), security, shape,
                Map.of("CKC_GATEWAY_ID", "gw-" + i,
                        "CKC_KAFKA_BOOTSTRAP", KafkaBroker.BOOTSTRAP, "CKC_UDP_HOST", "127.0.0.1",
                        "CKC_UDP_PORT", String.valueOf(StackShape.FIRST_UDP_PORT + i - 1),
                        "CKC_MQTT_PORT", String.valueOf(shape.firstMqttPort() + i - 1),
                        "CKC_MQTT_WS_PORT", String.valueOf(StackShape.FIRST_MQTT_WS_PORT + i - 1),
                        "CKC_METRICS_PORT", String.valueOf(StackShape.FIRST_METRICS_PORT + i - 1)));
        env.putAll(kafkaPrincipal(shape, List.of("gw-" + i)));
        processes.start("gateway-" + i, home.log("gateway-" + i), env,
                List.of("java", "-Xmx" + shape.gatewayHeap(), "-XX:+UseG1GC", processes.gcLog("gateway-" + i), "-jar",
                        home.gatewayJar().toString()));
    }

    private void awaitGateway(int i) {
        processes.awaitLog("gateway-" + i, home.log("gateway-" + i), "listening on udp", Duration.ofSeconds(60));
    }

    /**
     * {@code kill -9} of gateway {@code gw-i}'s own JVM (a stack whose gateways run a JVM each), then the gateway
     * started again; returns once it listens.
     */
    void killGateway(int i) {
        String name = "gateway-" + i;
        ProcessHandle process = processes.pid(name).flatMap(ProcessHandle::of)
                .orElseThrow(() -> new Ckc.Failure(name + " is not running: a stack with a JVM per gateway runs one"));
        process.destroyForcibly();
        process.onExit().join();
        StackShape shape = StackShape.load(shapeFile()).orElseThrow(() -> new Ckc.Failure("no stack is up"));
        security = security(shape);
        launchGateway(shape, i);
        awaitGateway(i);
    }

    /** The pid file of the process that runs gw-1. */
    Path firstGatewayPidFile() {
        return processes.isRunning("gateways") ? home.pidFile("gateways") : home.pidFile("gateway-1");
    }

    /** Stops everything {@link #up} started; a standalone Flink cluster keeps running. */
    void down() {
        StackShape.load(shapeFile()).map(StackShape::flinkUrl).ifPresent(url -> {
            try {
                new FlinkRest(url).cancelCkcJobs();
            } catch (IOException e) {
                Ckc.say("cannot cancel the jobs on " + url + ": " + e.getMessage());
            }
        });
        for (String name : processes.known()) {
            if (name.equals("gateways") || name.startsWith("gateway-")) {
                processes.stop(name);
            }
        }
        processes.stop("prometheus");
        processes.stop("flink-embedded");
        processes.stop("kafka");
        try {
            Files.deleteIfExists(shapeFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (processes.isRunning("flink-jobmanager")) {
            Ckc.say("stack stopped; the standalone Flink cluster keeps running ('./ckc flink-cluster stop')");
        } else {
            flink.removeScratch();
            Ckc.say("stack stopped");
        }
    }

    /**
     * The stack in this shape: the running one if it serves it and runs the jars built now; else restarted
     * (a restarted stack is monitored and runs on the Flink cluster as the one it replaces did).
     */
    StackShape ensure(StackShape wanted) {
        Optional<StackShape> running = running();
        StackShape shape = wanted;
        if (running.isPresent()) {
            StackShape current = running.get();
            if (newer(home.gatewayJar()) || newer(home.jobsJar())) {
                Ckc.say("the code changed since the stack started: restarting it");
            } else if (current.serves(wanted)) {
                return current;
            } else {
                Ckc.say("the running stack is " + current + ": restarting it as " + wanted);
            }
            shape = new StackShape(wanted.gateways(), wanted.gatewayProcesses(), wanted.appParallelism(),
                    wanted.deliveryParallelism(), wanted.jobFlags(), wanted.channels(),
                    wanted.monitoring() || current.monitoring(), wanted.flinkUrl() != null ? wanted.flinkUrl() : current.flinkUrl(),
                    wanted.insecure(), wanted.gatewayHeapGb(), wanted.gatewaySettings());
            down();
        }
        up(shape, UpCommand.DEFAULT_WARM_UP_SECONDS);
        return shape;
    }

    private boolean newer(Path jar) {
        try {
            return Files.exists(shapeFile()) && Files.getLastModifiedTime(jar).compareTo(Files.getLastModifiedTime(shapeFile())) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Each known process and whether it runs, or that nothing does. */
    List<String> status() {
        List<String> lines = new ArrayList<>();
        for (String name : processes.known()) {
            lines.add(processes.isRunning(name) ? name + " running (pid " + processes.pid(name).orElse(-1L) + ")"
                    : name + " dead");
        }
        return lines.isEmpty() ? List.of("nothing running") : lines;
    }
}
