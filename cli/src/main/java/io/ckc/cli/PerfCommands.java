package io.ckc.cli;

import io.ckc.gateway.GatewaySettings;
import io.ckc.perf.PerfCommand;
import io.ckc.protocol.config.Setting;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code ./ckc perf}: the paper's scenarios, the stepped load, overload, capacity, groupcast, rebalance and
 * rescaling, each on a stack of the shape it needs and beside a bare-Kafka echo in the same run; the whole
 * set ({@code suite}) and an A/B comparison of two revisions ({@code ab}).
 */
@Command(name = "perf", mixinStandardHelpOptions = true,
        description = "Measures CKC beside a bare-Kafka echo in the same run; results in perf/results/<date>-<scenario>/.",
        subcommands = {PerfCommands.Scenario1.class, PerfCommands.Stepped.class, PerfCommands.Overload.class,
                PerfCommands.Capacity.class, PerfCommands.Mtd.class, PerfCommands.Groupcast.class,
                PerfCommands.Rebalance.class, PerfCommands.Rescale.class, PerfCommands.Faults.class, PerfCommands.Soak.class, PerfCommands.Quick.class,
                PerfCommands.Handoff.class, PerfCommands.Codecs.class, PerfCommands.Mqtt.class, PerfCommands.Flood.class, PerfCommands.Fuzz.class, PerfCommands.Report.class, PerfSuite.class, PerfAb.class})
final class PerfCommands implements Runnable {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /**
     * The simulator command {@code command} with the options a user gave; refused at once, before any stack
     * starts, if it names an option the command line sets itself or one the simulator does not know.
     */
    static List<String> simulatorArgs(String command, List<String> given, Set<String> setHere) {
        for (String option : given) {
            if (setHere.contains(option)) {
                throw new Ckc.Failure(option + " is set by ./ckc for perf " + command + "; ./ckc perf " + command
                        + " --help lists what to give");
            }
        }
        List<String> args = new ArrayList<>();
        args.add(command);
        args.addAll(given);
        return args;
    }

    /** Parses a simulator command line as the simulator will, so a wrong option fails before anything starts. */
    static void checkSimulatorArgs(List<String> args) {
        try {
            new CommandLine(new PerfCommand()).parseArgs(args.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            throw new Ckc.Failure(e.getMessage());
        }
    }

    /**
     * Whether {@code options} ask for help; if so, prints the usage of {@code command} and then the simulator's
     * own help of {@code scenario}, whose options it passes on.
     */
    static boolean helpAsked(List<String> options, CommandLine command, String scenario) {
        if (!options.contains("--help") && !options.contains("-h")) {
            return false;
        }
        command.usage(System.out);
        System.out.println();
        System.out.println("Options of the simulator's " + scenario + ", given after these:");
        System.out.print(simulatorUsage(scenario));
        return true;
    }

    /** The simulator's own help of {@code command}, for a command line that passes its options on. */
    static String simulatorUsage(String command) {
        return new CommandLine(new PerfCommand()).getSubcommands().get(command).getUsageMessage();
    }

    /**
     * A scenario the simulator runs on a stack of one shape: the options this command line sets (the stack's
     * shape) and the simulator's own, passed on; {@code --help} shows both.
     */
    abstract static class OnStack implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Unmatched
        List<String> options = new ArrayList<>();

        @Option(names = "--insecure", description = "On a stack whose gateways do not authenticate nodes (the baseline "
                + "that shows what authentication costs)")
        boolean insecure;

        @Option(names = "--kafka-auth", description = "On a stack whose Kafka authenticates every client and authorizes "
                + "each component by its grants (what least privilege costs, beside a run without)")
        boolean kafkaAuth;

        /** The simulator command this runs. */
        abstract String scenario();

        /** The stack it runs on. */
        abstract StackShape shape();

        /** Simulator options this command sets itself. */
        Set<String> setHere() {
            return Set.of("--gateways", "--mqtt-gateways", "--gateway-metrics", "--results", "--pids-dir");
        }

        boolean help() {
            return helpAsked(options, spec.commandLine(), scenario());
        }

        @Override
        public Integer call() {
            if (help()) {
                return 0;
            }
            Home home = Home.current();
            List<String> args = simulatorArgs(scenario(), options, setHere());
            args.addAll(List.of("--pids-dir", home.pids.toString()));
            List<String> checked = new ArrayList<>(args);
            checked.addAll(List.of("--results", home.root.resolve("perf/results").toString()));
            checkSimulatorArgs(withGateways(checked, List.of("127.0.0.1:5500")));
            Path results = home.newResults(scenario());
            args.addAll(List.of("--results", results.toString()));
            StackShape stack = new Stack(home).ensure(shape().withChannels(channelOf(options)).withInsecure(insecure)
                    .withKafkaAuth(kafkaAuth));
            int code = Simulator.measuring(home).run(withStack(args, stack), results.resolve("run.log")).exitCode();
            return Math.max(code, finish(home, results, reportOptions(home)));
        }

        /** Options of the report that follows the run, beyond the results folder. */
        List<String> reportOptions(Home home) {
            return List.of();
        }

        /**
         * The simulator's command line with where the stack is: its gateways' UDP addresses, their MQTT addresses
         * for a scenario that can load MQTT devices ({@code --paths mqtt}), and their metrics URLs for one that reads
         * them.
         */
        List<String> withStack(List<String> args, StackShape stack) {
            List<String> all = withGateways(args, stack.gatewayAddresses());
            CommandLine.Model.CommandSpec simulator = new CommandLine(new PerfCommand()).getSubcommands().get(scenario())
                    .getCommandSpec();
            if (simulator.findOption("--mqtt-gateways") != null) {
                all.addAll(1, List.of("--mqtt-gateways", String.join(",", stack.mqttAddresses())));
            }
            if (simulator.findOption("--gateway-metrics") != null) {
                all.addAll(1, List.of("--gateway-metrics", String.join(",", stack.metricsAddresses().stream()
                        .map(address -> "http://" + address + "/metrics").toList())));
            }
            return all;
        }
    }

    /**
     * The channel a simulator command line sends to when it names one other than the echo's: its topic must
     * exist, so the stack is brought up with it.
     */
    static List<String> channelOf(List<String> options) {
        String value = valueOf(options, "--channel");
        if (value != null && !value.equals("echo")) {
            UpCommand.checkChannel(value);
            return List.of(value);
        }
        return List.of();
    }

    /** The value a simulator command line gives {@code option} ({@code --x v} or {@code --x=v}); null if none. */
    static String valueOf(List<String> options, String option) {
        for (int i = 0; i < options.size(); i++) {
            String given = options.get(i);
            if (given.startsWith(option + "=")) {
                return given.substring(option.length() + 1);
            }
            if (given.equals(option) && i + 1 < options.size()) {
                return options.get(i + 1);
            }
        }
        return null;
    }

    static List<String> withGateways(List<String> args, List<String> addresses) {
        List<String> all = new ArrayList<>(args);
        all.addAll(1, List.of("--gateways", String.join(",", addresses)));
        return all;
    }

    /** The report of a results folder, and its RESULT lines printed and kept in results.txt. */
    static int finish(Home home, Path results) {
        return finish(home, results, List.of());
    }

    /** The same, with options for the report ({@code perf report --help}). */
    static int finish(Home home, Path results, List<String> reportOptions) {
        List<String> report = new ArrayList<>(List.of("report", results.toString()));
        report.addAll(reportOptions);
        int code = Simulator.measuring(home).run(report, results.resolve("report.log")).exitCode();
        keepResults(results).forEach(System.out::println);
        return code;
    }

    /** The RESULT lines of a results folder's run.log into its results.txt, which git keeps (the log stays local). */
    static List<String> keepResults(Path results) {
        try {
            Path log = results.resolve("run.log");
            List<String> lines = Files.exists(log) ? Files.readAllLines(log).stream()
                    .filter(l -> l.startsWith("RESULT")).toList() : List.of();
            Files.write(results.resolve("results.txt"), lines);
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A scenario on a stack of as many gateways and such an echo parallelism as asked. */
    abstract static class OnShapedStack extends OnStack {
        @Option(names = "--gateways", defaultValue = "1", description = "Gateways (default ${DEFAULT-VALUE})")
        int gateways;

        @Option(names = "--app-parallelism", defaultValue = "1", description = "Echo parallelism (default ${DEFAULT-VALUE})")
        int app;

        StackShape shape() {
            return StackShape.of(gateways, app, List.of());
        }
    }

    @Command(name = "stepped", description = "Offered load rises by a step; at each level 30 one-second samples (mean "
            + "and 95%% CI); a path stops at p99 > 100 ms or any loss. CKC first, then the echo.")
    static final class Stepped extends OnShapedStack {
        String scenario() {
            return "stepped";
        }
    }

    @Command(name = "mqtt", description = "MQTT 5 devices on CKC beside CKC's UDP nodes and beside a Mosquitto broker "
            + "(started by the run) with an echo client: RTT p50/p99 at a fixed load with the CPU of each process, the "
            + "stepped load to saturation, and the idle connections one gateway and Mosquitto hold, memory per connection.")
    static final class Mqtt extends OnStack {
        String scenario() {
            return "mqtt";
        }

        StackShape shape() {
            return StackShape.of(1, 1, List.of());
        }

        /** A run that measured CKC beside the echo writes perf/README.md's cost per round trip. */
        @Override
        List<String> reportOptions(Home home) {
            List<String> command = new ArrayList<>(List.of("./ckc", "perf", "mqtt"));
            if (insecure) {
                command.add("--insecure");
            }
            command.addAll(options);
            return List.of("--readme", home.root.resolve("perf/README.md").toString(), "--command",
                    String.join(" ", command));
        }
    }

    @Command(name = "overload", description = "Today's saturation load (a short stepped search first), then a "
            + "multiple of it for minutes, then half of it: does the path deliver at its limit, drop no session and recover?")
    static final class Overload extends OnShapedStack {
        String scenario() {
            return "overload";
        }
    }

    @Command(name = "rescale", description = "A constant load through the echo application, with MTD messages in flight, "
            + "while jobs are rescaled by savepoint or in place (JOB:P:in-place, on a cluster started with --adaptive).")
    static final class Rescale extends OnStack {
        String scenario() {
            return "rescale";
        }

        StackShape shape() {
            return StackShape.of(1, 1, List.of());
        }
    }

    /**
     * A scenario on 3 gateways (a JVM each) and the jobs on the standalone Flink cluster, started if it is not, with
     * two TaskManagers sharing the jobs: the jobs of one that dies restart at once in the other's free slots, as a
     * deployment that must recover in seconds would run it.
     */
    abstract static class OnClusterStack extends OnStack {
        StackShape shape() {
            return new StackShape(3, "each", 1, 1, List.of(), List.of(), false, FlinkRuntime.CLUSTER_URL, false);
        }

        @Override
        public Integer call() {
            if (help()) {
                return 0;
            }
            new Stack(Home.current()).flink().startCluster(false, 2);
            return super.call();
        }
    }

    @Command(name = "faults", description = "A steady load and MTD messages on 3 gateways (a JVM each) and the jobs on the "
            + "standalone Flink cluster, while faults drawn from a seed strike: TaskManager, broker and gateway killed, "
            + "reconnect bursts, loss and a rate limit on a gateway's path. Lost, duplicates, order, expiry, recovery.")
    static final class Faults extends OnClusterStack {
        String scenario() {
            return "faults";
        }

        @Override
        public Integer call() {
            boolean network = !help() && NetworkFaults.cannot().isEmpty();
            if (network) {
                new NetworkFaults().lift(); // a run cut short may have left its rules
            }
            try {
                return super.call();
            } finally {
                if (network) {
                    new NetworkFaults().lift();
                }
            }
        }
    }

    @Command(name = "soak", description = "The nominal load for long (default 60 minutes) on 3 gateways (a JVM each) and "
            + "the jobs on the standalone Flink cluster: heap after GC, RSS, open files and threads of every process, "
            + "consumer lag and job state sampled each minute; whether each grows (slope per hour, with its confidence "
            + "interval: 95%% for all the judged series together). --judge DIR judges a past soak's samples again.")
    static final class Soak extends OnClusterStack {
        String scenario() {
            return "soak";
        }

        /** {@code --judge DIR} runs no stack and writes no results folder: it reads DIR, which it names as its own. */
        @Override
        public Integer call() {
            String judged = help() ? null : valueOf(options, "--judge");
            if (judged == null) {
                return super.call();
            }
            List<String> args = simulatorArgs(scenario(), options, setHere());
            args.addAll(List.of("--results", judged));
            checkSimulatorArgs(args);
            return Simulator.measuring(Home.current()).run(args, null).exitCode();
        }
    }

    @Command(name = "capacity", description = "Idle nodes join one gateway in batches: heap, resident memory and CPU per node.")
    static final class Capacity extends OnStack {
        /** Heap the gateway and the simulator get per node to hold, beyond a GB of their own. */
        static final int HEAP_BYTES_PER_NODE = 8 * 1024;

        @Option(names = {"--nodes", "--max"}, defaultValue = "100000", description = "Idle nodes to hold (default "
                + "${DEFAULT-VALUE}); the gateway and the simulator get 8 KB of heap per node beyond 1 GB, at least "
                + "their defaults")
        int nodes;

        @Option(names = "--keepalive-seconds", defaultValue = "15", description = "How often an idle node that heard "
                + "nothing pings its gateway (default ${DEFAULT-VALUE}, the SDK's); past 15 s the gateway's session "
                + "timeout (CKC_SESSION_TIMEOUT_MS, 30 s) becomes twice it")
        int keepaliveSeconds;

        String scenario() {
            return "capacity";
        }

        StackShape shape() {
            return StackShape.of(1, 1, List.of()).withGateways(heapGb(nodes, StackShape.DEFAULT_GATEWAY_HEAP_GB),
                    gatewaySettings(keepaliveSeconds));
        }

        /** GB of heap for a JVM that holds {@code nodes}: 8 KB each and 1 GB, at least {@code atLeast}; 0 for that. */
        static int heapGb(int nodes, int atLeast) {
            int gb = (int) Math.ceil((double) nodes * HEAP_BYTES_PER_NODE / (1L << 30)) + 1;
            return gb > atLeast ? gb : 0;
        }

        /** The gateway times a session out after twice the nodes' keepalive, and never sooner than by default. */
        static List<String> gatewaySettings(int keepaliveSeconds) {
            Setting timeout = GatewaySettings.SESSION_TIMEOUT_MS;
            long timeoutMs = 2_000L * keepaliveSeconds;
            return timeoutMs <= Long.parseLong(timeout.defaultValue()) ? List.of()
                    : List.of(timeout.name() + "=" + timeoutMs);
        }

        @Override
        Set<String> setHere() {
            return Set.of("--gateway", "--mqtt-gateway", "--gateway-pid-file", "--pids-dir", "--csv");
        }

        @Override
        public Integer call() {
            if (help()) {
                return 0;
            }
            Home home = Home.current();
            List<String> args = simulatorArgs(scenario(), options, setHere());
            args.addAll(List.of("--gateway", "127.0.0.1:" + StackShape.FIRST_UDP_PORT, "--nodes", String.valueOf(nodes),
                    "--keepalive-seconds", String.valueOf(keepaliveSeconds)));
            checkSimulatorArgs(args);
            Path results = home.newResults(scenario());
            args.addAll(List.of("--csv", results.resolve("capacity.csv").toString()));
            Stack stack = new Stack(home);
            StackShape shape = stack.ensure(shape().withInsecure(insecure));
            args.addAll(List.of("--gateway-pid-file", stack.firstGatewayPidFile().toString(), "--pids-dir",
                    home.pids.toString(), "--mqtt-gateway", shape.mqttAddresses().get(0)));
            int code = Simulator.capacity(home, heapGb(nodes, Simulator.CAPACITY_HEAP_GB)).run(args,
                    results.resolve("run.log")).exitCode();
            keepResults(results);
            return code;
        }
    }

    @Command(name = "groupcast", description = "Groupcasts to 10,000 members on 3 gateways, 500 other nodes to catch extras: "
            + "warm-ups, then timed ones, each until its last member has it.")
    static final class Groupcast extends OnStack {
        String scenario() {
            return "groupcast";
        }

        StackShape shape() {
            return StackShape.of(3, 1, List.of());
        }

        @Override
        public Integer call() {
            return withoutResultsFolder(this, List.of("--bootstrap", KafkaBroker.BOOTSTRAP, "--pids-dir",
                    Home.current().pids.toString()));
        }
    }

    @Command(name = "rebalance", description = "15,000 nodes all starting on one of 3 gateways, balanced by the PoA manager's "
            + "handovers: rounds, handovers per node, anything lost.")
    static final class Rebalance extends OnStack {
        @Option(names = "--job-flag", description = "A flag for every job, repeated: --job-flag=--ranking --job-flag=latency")
        List<String> jobFlags = new ArrayList<>();

        String scenario() {
            return "rebalance";
        }

        StackShape shape() {
            return StackShape.of(3, 1, jobFlags);
        }

        @Override
        public Integer call() {
            return withoutResultsFolder(this, List.of("--bootstrap", KafkaBroker.BOOTSTRAP));
        }
    }

    @Command(name = "flood", description = "200 honest nodes' echo on one gateway, quiet, then while one address floods "
            + "connects, then while one node floods messages: their RTT per phase, the refusals, anything lost.")
    static final class Flood extends OnStack {
        String scenario() {
            return "flood";
        }

        StackShape shape() {
            return StackShape.of(1, 1, List.of());
        }

        @Override
        Set<String> setHere() {
            return Set.of("--gateways", "--metrics", "--bootstrap");
        }

        @Override
        public Integer call() {
            if (help()) {
                return 0;
            }
            Home home = Home.current();
            List<String> args = simulatorArgs(scenario(), options, setHere());
            args.addAll(List.of("--bootstrap", KafkaBroker.BOOTSTRAP, "--metrics",
                    "http://127.0.0.1:" + StackShape.FIRST_METRICS_PORT + "/metrics"));
            checkSimulatorArgs(withGateways(args, List.of("127.0.0.1:" + StackShape.FIRST_UDP_PORT)));
            StackShape stack = new Stack(home).ensure(shape().withInsecure(insecure));
            return Simulator.measuring(home).run(withGateways(args, stack.gatewayAddresses()), null).exitCode();
        }
    }

    /** The scenarios whose figures are their RESULT lines alone: no results folder, no report. */
    static int withoutResultsFolder(OnStack command, List<String> extra) {
        if (command.help()) {
            return 0;
        }
        Home home = Home.current();
        List<String> args = simulatorArgs(command.scenario(), command.options, Set.of("--gateways", "--mqtt-gateways",
                "--bootstrap"));
        args.addAll(extra);
        checkSimulatorArgs(withGateways(args, List.of("127.0.0.1:5500")));
        StackShape stack = new Stack(home).ensure(command.shape().withInsecure(command.insecure));
        List<String> all = withGateways(args, stack.gatewayAddresses());
        all.addAll(1, List.of("--mqtt-gateways", String.join(",", stack.mqttAddresses())));
        return Simulator.measuring(home).run(all, null).exitCode();
    }

    @Command(name = "handoff", description = "The machine's cost of handing a message from one thread to another after idle "
            + "gaps: tells machines apart. No stack.")
    static final class Handoff implements Callable<Integer> {
        @Unmatched
        List<String> options = new ArrayList<>();

        @Override
        public Integer call() {
            return withoutStack("handoff", options);
        }
    }

    @Command(name = "codecs", description = "Write+read cost per record of CKC's JSON, its binary (protobuf) records and "
            + "Avro, side by side in one run. No stack.")
    static final class Codecs implements Callable<Integer> {
        @Unmatched
        List<String> options = new ArrayList<>();

        @Override
        public Integer call() {
            return withoutStack("codecs", options);
        }
    }

    /** A scenario that measures this machine or this code alone: the simulator, no stack, no results folder. */
    static int withoutStack(String scenario, List<String> options) {
        List<String> args = simulatorArgs(scenario, options, Set.of());
        checkSimulatorArgs(args);
        return Simulator.measuring(Home.current()).run(args, null).exitCode();
    }

    @Command(name = "fuzz", description = "Each fuzz target (frames, UDP sessions, MQTT connections, the jobs' records) "
            + "under Jazzer for a while, in a JVM of its own; RESULT target=.. cases=.. crashes=.. per target. No stack.")
    static final class Fuzz implements Callable<Integer> {
        @Unmatched
        List<String> options = new ArrayList<>();

        @Override
        public Integer call() {
            Home home = Home.current();
            if (options.contains("--help") || options.contains("-h")) {
                return Simulator.fuzzer(home).run(List.of("--help"), null).exitCode();
            }
            for (String option : List.of("--results", "--corpus", "--work")) {
                if (options.stream().anyMatch(o -> o.equals(option) || o.startsWith(option + "="))) {
                    throw new Ckc.Failure(option + " is set by ./ckc for perf fuzz");
                }
            }
            Path results = home.newResults("fuzz");
            List<String> args = new ArrayList<>(List.of("--results", results.toString(),
                    "--corpus", home.root.resolve("fuzz/corpus").toString(),
                    "--work", home.state.resolve("fuzz").toString()));
            args.addAll(options);
            return Simulator.fuzzer(home).run(args, results.resolve("run.log")).exitCode();
        }
    }

    @Command(name = "report", mixinStandardHelpOptions = true,
            description = "The tables, CSVs and report.html again from a results folder.")
    static final class Report implements Callable<Integer> {
        @CommandLine.Parameters(paramLabel = "DIR")
        Path dir;

        @Override
        public Integer call() {
            return Simulator.measuring(Home.current()).run(List.of("report", dir.toString()), null).exitCode();
        }
    }

    @Command(name = "quick", mixinStandardHelpOptions = true,
            description = "A few minutes end to end: one small configuration (UDP nodes, then MQTT devices) and two load "
                    + "levels, each beside the echo.")
    static final class Quick implements Callable<Integer> {
        @Override
        public Integer call() {
            Home home = Home.current();
            Path results = home.newResults("quick");
            StackShape stack = new Stack(home).ensure(StackShape.of(1, 1, List.of()));
            Simulator simulator = Simulator.measuring(home);
            int code = 0;
            for (String path : List.of("kafka", "ckc", "mqtt")) {
                code = Math.max(code, simulator.run(List.of("run", "--config", "1", "--path", path, "--gateways",
                        String.join(",", stack.gatewayAddresses()), "--mqtt-gateways",
                        String.join(",", stack.mqttAddresses()), "--nodes", "200", "--messages", "5", "--rate", "60",
                        "--results", results.toString(), "--pids-dir", home.pids.toString()), results.resolve("run.log")).exitCode());
            }
            code = Math.max(code, simulator.run(List.of("stepped", "--gateways", String.join(",", stack.gatewayAddresses()),
                    "--nodes", "200", "--start", "100", "--step", "200", "--max-steps", "2", "--warmup-seconds", "2",
                    "--samples", "5", "--results", results.toString(), "--pids-dir", home.pids.toString()),
                    results.resolve("run.log")).exitCode());
            return Math.max(code, finish(home, results));
        }
    }

    @Command(name = "scenario1", mixinStandardHelpOptions = true, sortOptions = false,
            description = "The paper's Figure 4: configurations 1-8 (1,000 / 5,000 nodes x echo parallelism 1 / 3 x 1 / 3 "
                    + "gateways), restarting the stack in each shape, with the bare-Kafka echo for each node count.")
    static final class Scenario1 implements Callable<Integer> {
        /** The paper's Figure 4: id, nodes, echo parallelism, gateways, in the order that restarts the stack least. */
        static final int[][] CONFIGURATIONS = {{1, 1000, 1, 1}, {3, 5000, 1, 1}, {2, 1000, 3, 1}, {4, 5000, 3, 1},
                {5, 1000, 1, 3}, {7, 5000, 1, 3}, {6, 1000, 3, 3}, {8, 5000, 3, 3}};

        @Option(names = "--configs", split = ",", description = "Configurations to run (default: all eight)")
        Set<Integer> configs = new LinkedHashSet<>(List.of(1, 2, 3, 4, 5, 6, 7, 8));

        @Option(names = "--per-gateway", description = "Node counts per gateway: configuration 8 then has the paper's 15,000")
        boolean perGateway;

        @Option(names = "--messages", defaultValue = "10", description = "Messages per node (default ${DEFAULT-VALUE})")
        int messages;

        @Option(names = "--rate", defaultValue = "12", description = "Messages per node per minute (default ${DEFAULT-VALUE})")
        int rate;

        @Option(names = "--drain-seconds", description = "Seconds to wait for the last echoes")
        Integer drainSeconds;

        @Option(names = "--arrivals", description = "constant or poisson")
        String arrivals;

        @Option(names = "--protocol", defaultValue = "udp", description = "How the nodes connect: udp (CKC's reliable "
                + "UDP), mqtt (MQTT 5 devices on the gateways' MQTT ports) or mixed (half of each at once) "
                + "(default ${DEFAULT-VALUE})")
        String protocol;

        @Override
        public Integer call() {
            if (!List.of("udp", "mqtt", "mixed").contains(protocol)) {
                throw new Ckc.Failure("--protocol is udp, mqtt or mixed, not " + protocol);
            }
            Home home = Home.current();
            Path results = home.newResults("scenario1");
            Ckc.say("scenario 1 into " + results);
            Simulator simulator = Simulator.measuring(home);
            // The machine's thread hand-off cost, beside the runs: every path pays it at each hop.
            simulator.run(List.of("handoff"), results.resolve("handoff.txt"));
            List<String> load = new ArrayList<>(List.of("--messages", String.valueOf(messages), "--rate", String.valueOf(rate)));
            if (drainSeconds != null) {
                load.addAll(List.of("--drain-seconds", String.valueOf(drainSeconds)));
            }
            if (arrivals != null) {
                load.addAll(List.of("--arrivals", arrivals));
            }
            Set<Integer> baselines = new LinkedHashSet<>();
            for (int[] c : CONFIGURATIONS) {
                if (!configs.contains(c[0])) {
                    continue;
                }
                int nodes = perGateway ? c[1] * c[3] : c[1];
                StackShape stack = new Stack(home).ensure(StackShape.of(c[3], c[2], List.of()));
                if (baselines.add(nodes)) {
                    simulator.run(run("k" + nodes, "kafka", stack, 0, nodes, load, results, home), results.resolve("run.log"));
                }
                simulator.run(run(String.valueOf(c[0]), protocol.equals("udp") ? "ckc" : protocol, stack, c[2], nodes,
                        load, results, home), results.resolve("run.log"));
            }
            return finish(home, results);
        }

        private static List<String> run(String config, String path, StackShape stack, int app, int nodes,
                                        List<String> load, Path results, Home home) {
            List<String> args = new ArrayList<>(List.of("run", "--config", config, "--path", path, "--nodes",
                    String.valueOf(nodes)));
            if (!path.equals("kafka")) {
                args.addAll(List.of("--gateways", String.join(",", stack.gatewayAddresses()), "--mqtt-gateways",
                        String.join(",", stack.mqttAddresses()), "--app-parallelism", String.valueOf(app)));
            }
            args.addAll(load);
            args.addAll(List.of("--results", results.toString(), "--pids-dir", home.pids.toString()));
            return args;
        }
    }

    @Command(name = "mtd", sortOptions = false,
            description = "The paper's outbound scenarios (Figures 16, 17): mtd_1, mtd_3, mtd_5 with the MTD off, then mtd_2, "
                    + "mtd_4 with it on (a stack restart between), beside the bare-Kafka echo with the same nodes and load.")
    static final class Mtd implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--nodes", defaultValue = "5000", description = "Nodes (default ${DEFAULT-VALUE})")
        int nodes;

        @Option(names = "--messages", defaultValue = "10", description = "Messages per node (default ${DEFAULT-VALUE})")
        int messages;

        @Option(names = "--rate", defaultValue = "4", description = "Messages per node per minute (default ${DEFAULT-VALUE})")
        int rate;

        @Unmatched
        List<String> options = new ArrayList<>();

        @Override
        public Integer call() {
            if (helpAsked(options, spec.commandLine(), "mtd")) {
                return 0;
            }
            Home home = Home.current();
            Path results = home.root.resolve("perf/results");
            List<String> load = List.of("--nodes", String.valueOf(nodes), "--messages", String.valueOf(messages),
                    "--rate", String.valueOf(rate));
            checkSimulatorArgs(withGateways(mtd(false, "mtd_1,mtd_3,mtd_5", load, results, home), List.of("127.0.0.1:5500")));
            results = home.newResults("mtd");
            List<String> mtdOff = mtd(false, "mtd_1,mtd_3,mtd_5", load, results, home);
            Simulator simulator = Simulator.measuring(home);
            StackShape off = new Stack(home).ensure(StackShape.of(1, 1, List.of("--mtd", "false")));
            simulator.run(List.of("run", "--config", "k" + nodes, "--path", "kafka", "--nodes", String.valueOf(nodes),
                    "--messages", String.valueOf(messages), "--rate", String.valueOf(rate), "--results", results.toString(),
                    "--pids-dir", home.pids.toString()), results.resolve("run.log"));
            simulator.run(onFirstGateway(mtdOff, off), results.resolve("run.log"));
            StackShape on = new Stack(home).ensure(StackShape.of(1, 1, List.of()));
            simulator.run(onFirstGateway(mtd(true, "mtd_2,mtd_4", load, results, home), on), results.resolve("run.log"));
            return finish(home, results);
        }

        /** The nodes on the stack's first gateway: its UDP address, and its MQTT one for {@code --protocol mqtt|mixed}. */
        private static List<String> onFirstGateway(List<String> args, StackShape stack) {
            List<String> all = withGateways(args, List.of(stack.firstGateway()));
            all.addAll(1, List.of("--mqtt-gateways", stack.mqttAddresses().get(0)));
            return all;
        }

        private List<String> mtd(boolean on, String configs, List<String> load, Path results, Home home) {
            List<String> args = simulatorArgs("mtd", options, Set.of("--gateways", "--mqtt-gateways", "--mtd", "--configs",
                    "--results", "--pids-dir"));
            args.addAll(List.of("--mtd", String.valueOf(on), "--configs", configs, "--results", results.toString(),
                    "--pids-dir", home.pids.toString()));
            args.addAll(load);
            return args;
        }
    }
}
