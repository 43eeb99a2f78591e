package io.ckc.perf;

import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

/** Where the stack is and where a run's figures go: the options the measuring commands share. */
final class StackOptions {

    @Option(names = "--gateways", split = ",", description = "Gateway UDP addresses, host:port,... (path ckc)")
    List<String> gateways = List.of();

    @Option(names = "--mqtt-gateways", split = ",", paramLabel = "HOST:PORT",
            description = "The gateways' MQTT addresses (path mqtt)")
    List<String> mqttGateways = List.of();

    @Option(names = "--mosquitto", defaultValue = "mosquitto", description = "The Mosquitto broker to start for path "
            + "mosquitto (default ${DEFAULT-VALUE}, the Debian package's)")
    String mosquitto = "mosquitto";

    @Option(names = "--mosquitto-port", defaultValue = "18830", description = "Its port (default ${DEFAULT-VALUE})")
    int mosquittoPort = 18830;

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers")
    String bootstrap = "127.0.0.1:9092";

    /** The echo application's channel (Kafka app.echo). */
    static final String ECHO_CHANNEL = "echo";

    @Option(names = "--channel", defaultValue = ECHO_CHANNEL, description = "The channel the nodes send to (Kafka "
            + "app.<channel>, path ckc): the echo application's, or your own application's if it answers each message "
            + "to its sender with the payload unchanged (default ${DEFAULT-VALUE})")
    String channel = ECHO_CHANNEL;

    @Option(names = "--io-threads", defaultValue = "2", description = "Simulator I/O threads (default ${DEFAULT-VALUE})")
    int ioThreads = 2;

    @Option(names = "--results", required = true, description = "Results folder")
    Path resultsDir;

    @Option(names = "--pids-dir", description = "The stack's pid files, for CPU and memory per process (.ckc/pids)")
    Path pidsDir;

    /** The stack's addresses for a scenario with options of its own (no results folder). */
    static StackOptions of(List<String> gateways, List<String> mqttGateways, String bootstrap, int ioThreads) {
        StackOptions stack = new StackOptions();
        stack.gateways = gateways;
        stack.mqttGateways = mqttGateways;
        stack.bootstrap = bootstrap;
        stack.ioThreads = ioThreads;
        return stack;
    }

    List<InetSocketAddress> mqttAddresses() {
        return mqttGateways.stream().map(DemoCommand::address).toList();
    }

    List<InetSocketAddress> gatewayAddresses() {
        return gateways.stream().map(DemoCommand::address).toList();
    }
}
