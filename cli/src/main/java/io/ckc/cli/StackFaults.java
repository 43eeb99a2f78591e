package io.ckc.cli;

import io.ckc.perf.FaultInjector;
import io.ckc.perf.FaultPlan;

import java.io.PrintStream;
import java.util.Optional;

/**
 * The faults of {@code ./ckc perf faults} on this machine's stack: its processes killed and started again by the
 * same code that started them, loss and rate limits by {@link NetworkFaults}. Needs the jobs on the standalone
 * cluster (a TaskManager to kill) and a JVM per gateway (a gateway to kill alone).
 */
final class StackFaults implements FaultInjector {

    private final Home home;
    private final Stack stack;
    private final NetworkFaults network = new NetworkFaults();

    StackFaults(Home home) {
        this.home = home;
        this.stack = new Stack(home);
    }

    @Override
    public Optional<String> cannot(FaultPlan.Kind kind) {
        StackShape shape = stack.requireRunning();
        return switch (kind) {
            case TASKMANAGER_KILL -> shape.flinkUrl() == null || !stack.processes().isRunning("flink-taskmanager")
                    ? Optional.of("the jobs run on the embedded MiniCluster, not on ./ckc flink-cluster") : Optional.empty();
            case GATEWAY_KILL -> shape.gatewayProcesses().equals("each") ? Optional.empty()
                    : Optional.of("the gateways share one JVM (--gateway-processes each runs one alone)");
            case PACKET_LOSS, RATE_LIMIT -> NetworkFaults.cannot();
            case BROKER_STOP, BROKER_KILL, RECONNECT_BURST -> Optional.empty();
        };
    }

    @Override
    public void killTaskManager(PrintStream out) {
        long started = System.nanoTime();
        stack.flink().killTaskManager();
        out.printf("  TaskManager killed and a new one registered in %d ms%n", (System.nanoTime() - started) / 1_000_000);
    }

    @Override
    public void stopBroker(boolean kill, PrintStream out) {
        long started = System.nanoTime();
        new KafkaBroker(home, stack.processes()).restart(kill);
        out.printf("  broker %s and started again in %d ms%n", kill ? "killed" : "stopped", (System.nanoTime() - started) / 1_000_000);
    }

    @Override
    public void killGateway(String gatewayId, PrintStream out) {
        long started = System.nanoTime();
        stack.killGateway(number(gatewayId));
        out.printf("  %s killed and started again in %d ms%n", gatewayId, (System.nanoTime() - started) / 1_000_000);
    }

    @Override
    public void impair(String gatewayId, int lossPercent, int rateKbit, PrintStream out) {
        int port = StackShape.FIRST_UDP_PORT + number(gatewayId) - 1;
        network.impair(port, lossPercent, rateKbit);
        out.printf("  %s (udp %d): %s%n", gatewayId, port, lossPercent > 0 ? lossPercent + "% of datagrams dropped"
                : "limited to " + rateKbit + " kbit/s");
    }

    @Override
    public void lift(PrintStream out) {
        network.lift();
        out.println("  lifted");
    }

    private static int number(String gatewayId) {
        return Integer.parseInt(gatewayId.substring(gatewayId.lastIndexOf('-') + 1));
    }
}
