package io.ckc.perf;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code perf} command line: {@code demo}, {@code rebalance}; the paper's scenarios join it. */
@Command(name = "ckc-perf", mixinStandardHelpOptions = true, subcommands = {DemoCommand.class, RebalanceCommand.class, MtdCommand.class, GroupcastCommand.class,
        RunCommand.class, ReportCommand.class, SteppedCommand.class, OverloadCommand.class, RescaleCommand.class, FaultsCommand.class, SoakCommand.class, CapacityCommand.class, ProbeCommand.class, HandoffCommand.class, CodecsCommand.class, MqttCommand.class, FloodCommand.class, LoadCommand.class},
        description = "CKC fleet simulator and performance scenarios.")
public final class PerfCommand implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new PerfCommand()).execute(args));
    }
}
