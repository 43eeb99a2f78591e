package io.ckc.cli;

import io.ckc.protocol.auth.SecretFiles;
import io.ckc.protocol.kafka.TopicSetup;
import org.apache.kafka.clients.admin.Admin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The stack's Kafka: one broker in KRaft combined mode (broker and controller) as its own process, from
 * the Maven Central {@code kafka_2.13} jars; auto-creation off, every replication factor 1.
 */
final class KafkaBroker {

    static final int PORT = 9092;
    static final int CONTROLLER_PORT = 9093;
    static final String BOOTSTRAP = "127.0.0.1:" + PORT;
    /**
     * The channels every stack has: the echo application's, the echo inside the delivery job's, the perf replies', the
     * status one.
     */
    static final List<String> STACK_CHANNELS = List.of("echo", io.ckc.protocol.kafka.Topics.IN_JOB_ECHO_CHANNEL,
            "perf-replies", "status");

    private final Home home;
    private final Processes processes;

    KafkaBroker(Home home, Processes processes) {
        this.home = home;
        this.processes = processes;
    }

    /** The broker's settings on the stack's ports, open to every client. */
    static String serverProperties(Path dataDir) {
        return serverProperties(dataDir, PORT, CONTROLLER_PORT, null);
    }

    /**
     * The broker's settings. With an {@code adminPassword}, every client authenticates and may do only what its ACLs
     * grant ({@link io.ckc.protocol.kafka.KafkaAccess}): the components with SCRAM-SHA-512 (users made by the admin,
     * {@link io.ckc.protocol.kafka.KafkaPrincipals#grant}), the broker itself and the admin with PLAIN against this
     * file, so that they exist from the first start; {@value io.ckc.protocol.kafka.KafkaPrincipals#ADMIN} is the only
     * super user. The same logins as compose's brokers (their JAAS file, {@code KafkaPrincipals#brokerJaas}).
     * Plaintext: this broker listens on loopback only; a cluster's listeners add TLS (docker/, k8s/).
     */
    static String serverProperties(Path dataDir, int port, int controllerPort, String adminPassword) {
        String admin = io.ckc.protocol.kafka.KafkaPrincipals.ADMIN;
        List<String> listeners = adminPassword == null ? List.of(
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT") : List.of(
                "listeners=BROKER://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=BROKER://127.0.0.1:" + port,
                "listener.security.protocol.map=BROKER:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
                "inter.broker.listener.name=BROKER",
                "sasl.mechanism.inter.broker.protocol=PLAIN",
                "listener.name.broker.sasl.enabled.mechanisms=PLAIN," + io.ckc.protocol.kafka.KafkaAccess.MECHANISM,
                "listener.name.broker.plain.sasl.jaas.config="
                        + io.ckc.protocol.kafka.KafkaAccess.brokerPlainJaas(admin, adminPassword),
                "listener.name.broker.scram-sha-512.sasl.jaas.config="
                        + "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                "sasl.mechanism.controller.protocol=PLAIN",
                "listener.name.controller.sasl.enabled.mechanisms=PLAIN",
                "listener.name.controller.plain.sasl.jaas.config="
                        + io.ckc.protocol.kafka.KafkaAccess.brokerPlainJaas(admin, adminPassword),
                "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users=User:" + admin,
                "allow.everyone.if.no.acl.found=false");
        List<String> lines = new ArrayList<>(List.of(
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "controller.listener.names=CONTROLLER"));
        lines.addAll(listeners);
        lines.add(String.join("\n",
                "log.dirs=" + dataDir,
                "num.partitions=1",
                "auto.create.topics.enable=false",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=6",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                // One network thread and two request handlers, not 3 and 8: on two cores shared with every other
                // process of the stack more threads only switch more. A B A B of perf stepped, 2026-12-05: p99 at 4,500
                // msg/s 148 -> 110 ms, mean 43 -> 30 ms, a last good level of 4,500 in one run of two
                // (perf/results/2026-12-05-0310-broker).
                "num.network.threads=1",
                "num.io.threads=2",
                // A broker killed (-9) and started again is refused registration (DUPLICATE_BROKER_REGISTRATION)
                // until the controller times out its old session: with the default 9 s, the stack waited 8 s more
                // for it (14 s from kill to serving, perf faults 2026-11-25). With 4 s the old session has
                // expired before the new process registers; heartbeats every second keep a live one well inside.
                "broker.session.timeout.ms=4000",
                "broker.heartbeat.interval.ms=1000",
                // Kafka keeps every metadata snapshot it wrote open until retention deletes it with the log before
                // it, and by default writes one an hour and keeps a week: an open file more each hour for a week
                // (seen as Kafka's open files stepping at minute 57 of an hour's soak, and rising one every 10
                // minutes with a snapshot every 10 minutes: perf/results/2026-11-29-1123-soak). This single broker
                // writes one every 5 minutes, rolls its metadata log every 5 minutes and keeps 5 minutes of both
                // beyond the latest, so about 10 minutes after it starts its files stay level; its metadata is a
                // few kilobytes and has no follower to serve.
                "metadata.log.max.snapshot.interval.ms=300000",
                "metadata.log.segment.ms=300000",
                "metadata.max.retention.ms=300000", ""));
        return String.join("\n", lines);
    }

    /** StorageTool's arguments that format a data directory. */
    static List<String> formatArguments(String clusterId, Path properties) {
        return List.of("format", "-t", clusterId, "-c", properties.toString());
    }

    /**
     * Formats a fresh data directory and starts the broker, authenticating and authorizing every client when given the
     * admin's password ({@link #serverProperties(Path, int, int, String)}); returns once it serves.
     */
    void start(String adminPassword) {
        if (Processes.portOpen(PORT)) {
            throw new Ckc.Failure("port " + PORT + " is taken: is another Kafka running?");
        }
        Path dir = home.state.resolve("kafka");
        Path properties = dir.resolve("server.properties");
        try {
            Ckc.deleteTree(dir);
            Files.createDirectories(dir.resolve("data"));
            Files.createDirectories(home.logs);
            SecretFiles.write(properties, out -> out.write(serverProperties(dir.resolve("data"), PORT, CONTROLLER_PORT,
                    adminPassword).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> java = javaCommand();
        String clusterId = Ckc.runForOutput(concat(java, "kafka.tools.StorageTool", "random-uuid")).strip();
        clusterId = clusterId.substring(clusterId.lastIndexOf('\n') + 1);
        Ckc.runOrFail("format Kafka's storage", home.log("kafka-format"),
                concat(concat(java, "kafka.tools.StorageTool"), formatArguments(clusterId, properties)));
        ClassArchive archive = classArchive();
        if (!archive.exists()) {
            Ckc.say("recording Kafka's classes for its later starts (once)...");
            launch(archive.recordFlag());
            stop(false);
        }
        launch(archive.useFlag());
    }

    private ClassArchive classArchive() {
        return ClassArchive.of(home.state.resolve("cds"), "kafka", home.lib("kafka"));
    }

    private List<String> javaCommand() {
        // Compiled by C2 as well as C1 (the JVM's default), its C2 thread at the lowest CPU priority (launch). On C1 alone
        // (487b49a) a broker started again under load served sooner, because a restarted JVM's C2 compiled for 20-30 s on
        // one of the two cores (perf/results/2026-12-02-1801-ab); but in steady load that broker spent about 30% more
        // CPU per request, and it is the stack's largest user of CPU at saturation: in A B A B of perf stepped it
        // carried a level or more less (perf/results/2026-12-05-0310-broker). At nice 19 C2 compiles in the time the
        // stack leaves: a level more, and the first broker fault of a run recovered in 22.7 s instead of 10.7, the others
        // as on C1 alone (perf/results/2026-12-05-0414-broker-c2).
        return new ArrayList<>(List.of("java", "-cp", home.libClasspath("kafka"), "-Xms1g", "-Xmx1g",
                "-XX:+UseG1GC", "-XX:-UseDynamicNumberOfCompilerThreads", "-Dkafka.logs.dir=" + home.logs.resolve("kafka"),
                "-Dlog4j2.configurationFile=" + home.root.resolve("runtime/kafka/conf/log4j2.yaml")));
    }

    /**
     * Starts the broker on the data directory as it is, with {@code archiveFlag} (its class archive, used or
     * recorded); returns once it has started (again).
     */
    private void launch(String archiveFlag) {
        Path serverLog = home.logs.resolve("kafka/server.log");
        long logged = Processes.size(serverLog);
        List<String> run = javaCommand();
        run.add(archiveFlag);
        run.add(Processes.PRE_TOUCH_HEAP);
        run.add(processes.gcLog("kafka"));
        run.add("kafka.Kafka");
        run.add(home.state.resolve("kafka/server.properties").toString());
        processes.start("kafka", home.log("kafka"), processes.nativeMemoryEnv(), run);
        processes.awaitLog("kafka", home.log("kafka"),
                () -> Processes.portOpen(PORT) && Processes.containsAfter(serverLog, logged, "Kafka Server started"),
                Duration.ofSeconds(60), "'Kafka Server started'");
        processes.lowerPriority("kafka", "C2 CompilerThre");
    }

    /**
     * Stops the running broker, with SIGTERM (a clean shutdown, waited for up to 60 s) or, {@code kill}, SIGKILL;
     * then starts it again on its data; returns once it serves.
     */
    void restart(boolean kill) {
        stop(kill);
        ClassArchive archive = classArchive();
        launch(archive.exists() ? archive.useFlag() : archive.recordFlag());
    }

    /** Stops the running broker, with SIGTERM (a clean shutdown, waited for up to 60 s) or, {@code kill}, SIGKILL. */
    private void stop(boolean kill) {
        ProcessHandle broker = processes.pid("kafka").flatMap(ProcessHandle::of)
                .orElseThrow(() -> new Ckc.Failure("Kafka is not running"));
        if (kill) {
            broker.destroyForcibly();
        } else {
            broker.destroy();
        }
        try {
            broker.onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception notYet) {
            broker.destroyForcibly();
            broker.onExit().join();
        }
    }

    /** The stack's topics: the core's, each gateway's, and the application channels. */
    static void createTopics(StackShape shape, Admin admin) {
        try {
            TopicSetup.create(admin, new TopicSetup(io.ckc.protocol.kafka.Topics.DEFAULT, partitions(shape))
                    .allTopics(shape.allChannels(), shape.gatewayIds()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Ckc.Failure("interrupted while creating topics");
        }
    }

    /**
     * Partitions per topic of this one-broker stack: as many as its widest job reads with, not a cluster's 6
     * ({@link TopicSetup#DEFAULT_PARTITIONS}). Why: the broker's work is per fetch and per partition in it, and the
     * delivery job's source alone fetched 36 partitions each time. A job rescaled wider later keeps its extra source
     * subtasks idle and uses them all in its keyed steps.
     */
    static int partitions(StackShape shape) {
        return Math.max(shape.appParallelism(), shape.deliveryParallelism());
    }

    private static List<String> concat(List<String> head, String... tail) {
        return concat(head, List.of(tail));
    }

    private static List<String> concat(List<String> head, List<String> tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(tail);
        return all;
    }
}
