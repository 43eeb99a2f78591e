package io.ckc.perf;

import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

/** Where the stack is and where a run's figures go: the options the measuring commands share. */
final class StackOptions {

    @Option(names = "--gateways", split = ",", description = "Gateway UDP addresses, host:port,... (path ckc)")
    List<String> gateways = List.of();

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers")
    String bootstrap = "127.0.0.1:9092";

    @Option(names = "--io-threads", defaultValue = "2", description = "Simulator I/O threads (default ${DEFAULT-VALUE})")
    int ioThreads = 2;

    @Option(names = "--results", required = true, description = "Results folder")
    Path resultsDir;

    @Option(names = "--pids-dir", description = "The stack's pid files, for CPU and memory per process (.ckc/pids)")
    Path pidsDir;

    List<InetSocketAddress> gatewayAddresses() {
        return gateways.stream().map(DemoCommand::address).toList();
    }
}
