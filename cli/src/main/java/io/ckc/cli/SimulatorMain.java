package io.ckc.cli;

import io.ckc.perf.FaultsCommand;
import io.ckc.perf.FlinkPrometheus;
import io.ckc.perf.PerfCommand;
import io.ckc.perf.RescaleCommand;
import io.ckc.perf.SoakCommand;
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
                    // One reader for the run, made at the first sample (each command is made at start-up, before
                    // the stack is up): the reporters of a Flink cluster; none for embedded jobs, which are not asked.
                    return (K) new SoakCommand(new SoakCommand.FlinkJobs() {
                        private java.util.Optional<FlinkPrometheus> reporters;

                        @Override
                        public java.util.Map<String, Long> stateBytes() throws java.io.IOException {
                            return reporters().isEmpty() ? java.util.Map.of() : reporters.get().stateSizes();
                        }

                        @Override
                        public java.util.Map<String, Long> liveStateBytes() throws java.io.IOException {
                            return reporters().isEmpty() ? java.util.Map.of() : reporters.get().liveStateSizes();
                        }

                        @Override
                        public java.util.Map<String, Long> pendingRecords() throws java.io.IOException {
                            return reporters().isEmpty() ? java.util.Map.of() : reporters.get().pendingRecords();
                        }

                        @Override
                        public java.util.Map<String, Long> rocksDbBytes() throws java.io.IOException {
                            return reporters().isEmpty() ? java.util.Map.of() : reporters.get().rocksDbMemory();
                        }

                        private java.util.Optional<FlinkPrometheus> reporters() {
                            if (reporters == null) {
                                reporters = java.util.Optional.ofNullable(new Stack(home).requireRunning().flinkUrl())
                                        .map(url -> new FlinkPrometheus(java.net.URI.create(url).getHost(),
                                                FlinkPrometheus.FIRST_PORT, FlinkPrometheus.LAST_PORT));
                            }
                            return reporters;
                        }
                    });
                }
                if (type == RescaleCommand.class) {
                    return (K) new RescaleCommand((job, parallelism, mode, out) ->
                            JobsCli.rescale(home, new Stack(home).requireRunning(), job, parallelism, mode, out));
                }
                return defaults.create(type);
            }
        };
        System.exit(new CommandLine(new PerfCommand(), factory).execute(args));
    }
}
