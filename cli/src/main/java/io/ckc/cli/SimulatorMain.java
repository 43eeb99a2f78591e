package io.ckc.cli;

import io.ckc.perf.FaultsCommand;
import io.ckc.perf.PerfCommand;
import io.ckc.perf.RescaleCommand;
import io.ckc.perf.SoakCommand;
import io.ckc.jobs.ops.FlinkRest;
import picocli.CommandLine;

/**
 * The simulator's entry point when {@code ./ckc} runs it: the perf command tree, with {@code rescale}
 * rescaling the stack's jobs through the operator commands in this JVM (no shell in between), and
 * {@code faults} killing and restarting the stack's processes ({@link StackFaults}), and {@code soak} reading the
 * jobs' state sizes from the stack's Flink.
 */
public final class SimulatorMain {

    private SimulatorMain() {
    }

    public static void main(String[] args) {
        // A simulator outlives no ./ckc command that started it, even one killed with kill -9, which runs none of its
        // own shutdown hooks (a killed perf groupcast left its simulator's fleet sending to the stack).
        ProcessHandle.current().parent().ifPresent(command -> command.onExit().thenRun(() -> {
            System.err.println("the ./ckc command that started this simulator is gone (pid " + command.pid()
                    + "): stopping");
            System.exit(143);
        }));
        Home home = Home.current();
        CommandLine.IFactory defaults = CommandLine.defaultFactory();
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            @SuppressWarnings("unchecked")
            public <K> K create(Class<K> type) throws Exception {
                if (type == FaultsCommand.class) {
                    return (K) new FaultsCommand(new StackFaults(home));
                }
                if (type == SoakCommand.class) {
                    // One client for the run: each FlinkRest holds an HTTP client, its thread and a connection to the
                    // JobManager (one a minute made the soak's own threads and files grow, and the JobManager's files).
                    return (K) new SoakCommand(new SoakCommand.FlinkJobs() { // asked when sampling
                        private java.util.Optional<FlinkRest> rest; // empty: the jobs run embedded, no REST to ask

                        @Override
                        public java.util.Map<String, Long> stateBytes() throws java.io.IOException {
                            return rest().isEmpty() ? java.util.Map.of() : rest.get().stateSizes();
                        }

                        @Override
                        public java.util.Map<String, Long> liveStateBytes() throws java.io.IOException {
                            return rest().isEmpty() ? java.util.Map.of() : rest.get().liveStateSizes();
                        }

                        @Override
                        public java.util.Map<String, Long> pendingRecords() throws java.io.IOException {
                            return rest().isEmpty() ? java.util.Map.of() : rest.get().pendingRecords();
                        }

                        @Override
                        public java.util.Map<String, Long> rocksDbBytes() throws java.io.IOException {
                            return rest().isEmpty() ? java.util.Map.of() : rest.get().rocksDbMemory();
                        }

                        /**
                         * Made at the first sample, once: every command is made at start-up, before the stack is up,
                         * and an embedded stack's answer (no REST) is kept too, not asked again each sample.
                         */
                        private java.util.Optional<FlinkRest> rest() {
                            if (rest == null) {
                                rest = java.util.Optional.ofNullable(new Stack(home).requireRunning().flinkUrl())
                                        .map(FlinkRest::new);
                            }
                            return rest;
                        }
                    });
                }
                if (type == RescaleCommand.class) {
                    return (K) new RescaleCommand((job, parallelism, inPlace, out) ->
                            JobsCli.rescale(home, new Stack(home).requireRunning(), job, parallelism, inPlace, out));
                }
                return defaults.create(type);
            }
        };
        System.exit(new CommandLine(new PerfCommand(), factory).execute(args));
    }
}
