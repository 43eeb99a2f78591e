package io.ckc.perf;

import java.io.PrintStream;
import java.util.Optional;

/**
 * Injects the faults of {@code perf faults} into the stack the run measures: {@code ./ckc perf faults} gives one
 * that kills and restarts the stack's processes and impairs a gateway's network; a test gives one for its
 * in-JVM parts. Each call returns once the fault is in place and, for a kill, once the process serves again.
 */
public interface FaultInjector {

    /** Why this machine cannot inject {@code kind} (missing tool, no root); empty if it can. */
    Optional<String> cannot(FaultPlan.Kind kind);

    /**
     * Called once before the load begins: what is slow the first time (a client of the cluster, its first query) is
     * done here, so that it does not delay the first fault.
     */
    default void prepare(PrintStream out) throws Exception {
    }

    /**
     * Called before each fault, before its time is taken: what the injector reads of the stack to report on the
     * fault (the jobs' restarts so far) is read here, so that a slow read does not count toward the recovery.
     */
    default void beforeFault(FaultPlan.Kind kind) {
    }

    /** {@code kill -9} of the TaskManager; started again, returns once it has registered. */
    void killTaskManager(PrintStream out) throws Exception;

    /** Stops the broker, with SIGTERM or, {@code kill}, with SIGKILL; starts it again on its data, returns once it serves. */
    void stopBroker(boolean kill, PrintStream out) throws Exception;

    /** {@code kill -9} of the process of gateway {@code gatewayId}; started again, returns once it listens. */
    void killGateway(String gatewayId, PrintStream out) throws Exception;

    /**
     * Drops {@code lossPercent}% of the datagrams to and from gateway {@code gatewayId} (0: none), and limits them to
     * {@code rateKbit} kbit/s (0: no limit), until {@link #lift}.
     */
    void impair(String gatewayId, int lossPercent, int rateKbit, PrintStream out) throws Exception;

    /** Lifts every impairment. */
    void lift(PrintStream out) throws Exception;
}
