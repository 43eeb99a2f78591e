package io.ckc.perf;

import java.io.PrintStream;
import java.util.Map;

/**
 * Rescales one of the stack's jobs for {@link RescaleCommand}: the command line ({@code ./ckc perf rescale})
 * gives one that calls the operator commands in the same JVM.
 */
@FunctionalInterface
public interface Rescaler {

    /**
     * Rescales {@code job} to {@code parallelism} in one of {@link RescaleCommand#MODES} (by savepoint, in place
     * through the adaptive scheduler, or blue/green beside the running job); prints what it does on {@code out}.
     *
     * @return the key=value pairs of the rescale's RESULT line; empty if it failed
     */
    Map<String, String> rescale(String job, int parallelism, String mode, PrintStream out) throws Exception;
}
