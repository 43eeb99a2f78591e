package io.ckc.cli;

import io.ckc.jobs.ops.FlinkRest;
import io.ckc.perf.FaultInjector;
import io.ckc.perf.FaultPlan;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * The faults of {@code ./ckc perf faults} on this machine's stack: its processes killed and started again by the
 * same code that started them, loss and rate limits by {@link NetworkFaults}. Needs the jobs on the standalone
 * cluster (a TaskManager to kill) and a JVM per gateway (a gateway to kill alone).
 */
final class StackFaults implements FaultInjector {

    /** Flink's {@code metrics.fetcher.update-interval}: how stale a job metric the REST API gives may be. */
    private static final int METRICS_REFRESH_SECONDS = 10;

    private final Home home;
    private final Stack stack;
    private final NetworkFaults network = new NetworkFaults();
    private FlinkRest flink;
    /** The jobs' restarts as the next fault strikes, read before its time is taken; -1 if not known. */
    private long restartsBefore = -1;

    StackFaults(Home home) {
        this.home = home;
        this.stack = new Stack(home);
    }

    @Override
    public Optional<String> cannot(FaultPlan.Kind kind) {
        StackShape shape = stack.requireRunning();
        return switch (kind) {
            case TASKMANAGER_KILL -> shape.flinkUrl() == null || stack.flink().runningTaskManagers().isEmpty()
                    ? Optional.of("the jobs run on the embedded MiniCluster, not on ./ckc flink-cluster") : Optional.empty();
            case GATEWAY_KILL -> shape.gatewayProcesses().equals("each") ? Optional.empty()
                    : Optional.of("the gateways share one JVM (--gateway-processes each runs one alone)");
            case PACKET_LOSS, RATE_LIMIT -> NetworkFaults.cannot();
            case BROKER_STOP, BROKER_KILL, RECONNECT_BURST -> Optional.empty();
        };
    }

    /** The cluster's REST client and its first restart count: the first query took 6-16 s under load. */
    @Override
    public void prepare(PrintStream out) {
        if (jobRestarts() < 0 && flink() != null) {
            out.println("the Flink cluster does not answer for its jobs' restarts");
        }
    }

    /** A query of the cluster took 0.5-2 s under load: done before the fault, it does not delay the blow. */
    @Override
    public void beforeFault(FaultPlan.Kind kind) {
        restartsBefore = kind == FaultPlan.Kind.TASKMANAGER_KILL || kind == FaultPlan.Kind.BROKER_STOP
                || kind == FaultPlan.Kind.BROKER_KILL ? jobRestarts() : -1;
    }

    @Override
    public void killTaskManager(PrintStream out) {
        long started = System.nanoTime();
        FlinkRuntime.Killed killed = stack.flink().killTaskManager(flink());
        out.printf("  %s killed; %sa new one registered %d ms after the kill%n", killed.name(),
                killed.jobsBackMs() < 0 ? "no other TaskManager; " : String.format("every job's tasks ran again %d ms after "
                        + "it; ", killed.jobsBackMs()), (System.nanoTime() - started) / 1_000_000);
        reportJobsBack(started, restartsBefore, killed.jobsBackMs() < 0 ? null : killed.jobsBackMs(), out);
    }

    @Override
    public void stopBroker(boolean kill, PrintStream out) {
        long started = System.nanoTime();
        new KafkaBroker(home, stack.processes()).restart(kill);
        out.printf("  broker %s and started again in %d ms%n", kill ? "killed" : "stopped", (System.nanoTime() - started) / 1_000_000);
        reportJobsBack(started, restartsBefore, null, out);
    }

    @Override
    public void killGateway(String gatewayId, PrintStream out) {
        long started = System.nanoTime();
        stack.killGateway(number(gatewayId));
        out.printf("  %s killed and started again in %d ms%n", gatewayId, (System.nanoTime() - started) / 1_000_000);
    }

    @Override
    public void impair(String gatewayId, int lossPercent, int rateKbit, PrintStream out) {
        int udp = StackShape.FIRST_UDP_PORT + number(gatewayId) - 1;
        int mqtt = stack.requireRunning().firstMqttPort() + number(gatewayId) - 1;
        network.impair(List.of(new NetworkFaults.Port("udp", udp), new NetworkFaults.Port("tcp", mqtt)), lossPercent,
                rateKbit);
        out.printf("  %s (udp %d, mqtt %d): %s%n", gatewayId, udp, mqtt, lossPercent > 0 ? lossPercent
                + "% of packets dropped" : "limited to " + rateKbit + " kbit/s");
    }

    @Override
    public void lift(PrintStream out) {
        network.lift();
        out.println("  lifted");
    }

    /**
     * Where the time of a recovery goes: prints, from a thread of its own (the run goes on), when every job's tasks
     * run again after the fault struck at {@code started} (unless {@code knownBackMs} says it already), and how often
     * the jobs restarted meanwhile.
     */
    private void reportJobsBack(long started, long restartsBefore, Long knownBackMs, PrintStream out) {
        FlinkRest flink = flink();
        if (flink == null) {
            return;
        }
        Thread watch = new Thread(() -> {
            boolean back = knownBackMs != null
                    || flink.awaitCkcJobsRunAllTasks(started + Duration.ofSeconds(120).toNanos(), Duration.ofMillis(500));
            long backMs = knownBackMs != null ? knownBackMs : (System.nanoTime() - started) / 1_000_000;
            // Why wait: the JobManager serves job metrics from a cache it refreshes every 10 s.
            LockSupport.parkNanos(Duration.ofSeconds(METRICS_REFRESH_SECONDS + 2).toNanos());
            long restarts = jobRestarts();
            out.printf("  jobs: %s %d ms after the fault, %s restarts by then%n",
                    back ? "every task running" : "not all tasks running", backMs,
                    restarts < 0 || restartsBefore < 0 ? "?" : String.valueOf(restarts - restartsBefore));
        }, "faults-jobs-back");
        watch.setDaemon(true);
        watch.start();
    }

    /** The CKC jobs' restarts so far; -1 when the cluster does not answer. */
    private long jobRestarts() {
        FlinkRest flink = flink();
        try {
            return flink == null ? -1 : flink.ckcJobRestarts();
        } catch (Exception e) {
            return -1;
        }
    }

    /** The cluster's REST API, one client for the run; null when the jobs run embedded. */
    private synchronized FlinkRest flink() {
        if (flink == null) {
            String url = stack.requireRunning().flinkUrl();
            flink = url == null ? null : new FlinkRest(url);
        }
        return flink;
    }

    private static int number(String gatewayId) {
        return Integer.parseInt(gatewayId.substring(gatewayId.lastIndexOf('-') + 1));
    }
}
