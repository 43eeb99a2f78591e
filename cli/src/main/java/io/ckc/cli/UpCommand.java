package io.ckc.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;

/** {@code ./ckc up}: Kafka, the topics, the Flink jobs and the gateways, ready once an echo made the round trip. */
@Command(name = "up", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Starts Kafka (KRaft, its own process), the topics, the Flink jobs (embedded, or on --flink) and "
                + "the gateways (UDP 5500, 5501, ...; metrics on 9400, 9401, ...); returns once an echo made the round "
                + "trip through every gateway and a warm-up load has run.")
final class UpCommand implements Runnable {

    /** Long enough for the JIT of every JVM on the path to compile what a round trip runs. */
    static final int DEFAULT_WARM_UP_SECONDS = 20;

    @Option(names = "--gateways", defaultValue = "1", description = "Gateways (default ${DEFAULT-VALUE})")
    int gateways;

    @Option(names = "--gateway-processes", description = "one: all gateways in one JVM (the default, or "
            + "CKC_GATEWAY_PROCESSES); each: a JVM per gateway, where one must fail alone")
    String gatewayProcesses = StackShape.defaultGatewayProcesses();

    @Option(names = "--app-parallelism", defaultValue = "1", description = "Parallelism of the echo application (default ${DEFAULT-VALUE})")
    int appParallelism;

    @Option(names = "--delivery-parallelism", defaultValue = "1", description = "Parallelism of the delivery job (default ${DEFAULT-VALUE})")
    int deliveryParallelism;

    @Option(names = "--channels", split = ",", description = "Application channels to create topics for, besides "
            + "echo, perf-replies and status: channel X is topic app.X")
    List<String> channels = new ArrayList<>();

    @Option(names = "--flink", description = "A Flink cluster's REST URL to submit the jobs to (./ckc flink-cluster start "
            + "gives http://127.0.0.1:8081); default: an embedded MiniCluster")
    String flink;

    @Option(names = "--warm-up", defaultValue = "" + DEFAULT_WARM_UP_SECONDS,
            description = "Seconds of warm-up load at least, until a 5 s window's p99 is under 100 ms; 0: none (default ${DEFAULT-VALUE})")
    int warmUp;

    @Option(names = "--monitoring", description = "Also run Prometheus on :9090 over the stack")
    boolean monitoring;

    @Option(names = "--insecure", description = "Gateways without authentication: plain frames, and anyone who knows a "
            + "node id can act as that node. For a perf baseline only")
    boolean insecure;

    @Option(names = "--kafka-auth", description = "Kafka authenticates every client (SASL/SCRAM-SHA-512) and lets each "
            + "component do only what it needs (ACLs); credentials in .ckc/kafka-auth/, an application's from ./ckc "
            + "credentials app")
    boolean kafkaAuth;

    @Parameters(description = "Flags for every job, after --: for example -- --ranking latency --imbalance-rel 0.1")
    List<String> jobFlags = new ArrayList<>();

    @Override
    public void run() {
        channels.forEach(UpCommand::checkChannel);
        new Stack(Home.current()).up(new StackShape(gateways, gatewayProcesses, appParallelism, deliveryParallelism,
                jobFlags, channels, monitoring, flink, insecure).withKafkaAuth(kafkaAuth), warmUp);
    }

    static void checkChannel(String channel) {
        if (!io.ckc.protocol.kafka.Topics.isValidChannel(channel)) {
            throw new Ckc.Failure("'" + channel + "' is not a channel name: 1 to 200 of A-Z a-z 0-9 . _ -");
        }
    }
}
