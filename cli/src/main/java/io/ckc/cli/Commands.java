package io.ckc.cli;

import io.ckc.deploy.DashboardCheck;
import io.ckc.deploy.Manifests;
import io.ckc.gateway.ConfigurationDoc;
import io.ckc.jobs.ops.RulesCommand;
import io.ckc.protocol.kafka.DrainGateway;
import io.ckc.protocol.kafka.Topics;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Unmatched;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/** The stack's and the operators' commands that do one thing each. */
final class Commands {

    private Commands() {
    }

    @Command(name = "down", mixinStandardHelpOptions = true,
            description = "Stops everything up started; no process is left behind (a standalone Flink cluster keeps running).")
    static final class Down implements Runnable {
        @Override
        public void run() {
            new Stack(Home.current()).down();
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "What runs: each process of the stack and its pid.")
    static final class Status implements Runnable {
        @Override
        public void run() {
            new Stack(Home.current()).status().forEach(System.out::println);
        }
    }

    @Command(name = "demo", sortOptions = false,
            description = "Brings the stack up in this shape (or keeps it), then simulated nodes send through the echo "
                    + "application: live progress, a table in the layout of the paper's Figure 4 and a RESULT line; "
                    + "exit code 1 if a message was lost. The demo's own options (--nodes, --rate, --messages, --channel, "
                    + "...) follow; ./ckc demo --help lists them.")
    static final class Demo implements Callable<Integer> {
        @Option(names = "--gateways", defaultValue = "1", description = "Gateways (default ${DEFAULT-VALUE})")
        int gateways;

        @Option(names = "--app-parallelism", defaultValue = "1", description = "Echo parallelism (default ${DEFAULT-VALUE})")
        int appParallelism;

        @Option(names = "--on", split = ",", paramLabel = "HOST:PORT",
                description = "Run against the gateways of a stack that runs elsewhere (docker compose, Kubernetes): no "
                        + "local stack is started")
        List<String> on;

        @Option(names = "--credentials", paramLabel = "FILE",
                description = "With --on: the credential store those gateways read; the nodes prove the keys of its "
                        + "fleet 'sim' (./ckc credentials fleet sim --store FILE)")
        Path credentials;

        @Option(names = "--kafka-auth", description = "On a stack whose Kafka authenticates every client and authorizes "
                + "each component by its grants (./ckc up --kafka-auth)")
        boolean kafkaAuth;

        @Unmatched
        List<String> demoOptions = new ArrayList<>();

        @Override
        public Integer call() {
            List<String> args = PerfCommands.simulatorArgs("demo", demoOptions, Set.of("--gateways", "--gateway-count",
                    "--app-parallelism"));
            if (PerfCommands.helpAsked(demoOptions, new CommandLine(this), "demo")) {
                return 0;
            }
            PerfCommands.checkSimulatorArgs(PerfCommands.withGateways(args, List.of("127.0.0.1:5500")));
            Home home = Home.current();
            if (on != null) {
                args.addAll(List.of("--gateways", String.join(",", on)));
                Simulator demo = credentials == null ? Simulator.demo(home)
                        : Simulator.demo(home).authenticating(credentials);
                return demo.run(args, null).exitCode();
            }
            StackShape stack = new Stack(home).ensure(StackShape.of(gateways, appParallelism, List.of())
                    .withChannels(PerfCommands.channelOf(demoOptions)).withKafkaAuth(kafkaAuth));
            if (!demoOptions.contains("--mqtt-gateways")) {
                args.addAll(List.of("--mqtt-gateways", String.join(",", stack.mqttAddresses())));
            }
            args.addAll(List.of("--gateways", String.join(",", stack.gatewayAddresses()), "--gateway-count",
                    String.valueOf(stack.gateways()), "--app-parallelism", String.valueOf(stack.appParallelism())));
            return Simulator.demo(home).run(args, null).exitCode();
        }
    }

    @Command(name = "load", sortOptions = false,
            description = "Drives simulated nodes or MQTT 5 devices at a rate on a channel against the application "
                    + "that answers it on the running stack (./ckc up --channels C) and checks every answer with a "
                    + "rule: RESULT sent, answered, wrong, duplicates, unanswered, round trips; exit code 1 unless all "
                    + "were answered rightly and once. Its options (--channel, --rate, --seconds, --expect, "
                    + "--protocol, ...) follow; ./ckc load --help lists them.")
    static final class Load implements Callable<Integer> {
        @Unmatched
        List<String> loadOptions = new ArrayList<>();

        @Override
        public Integer call() {
            List<String> args = PerfCommands.simulatorArgs("load", loadOptions, Set.of("--gateways"));
            if (PerfCommands.helpAsked(loadOptions, new CommandLine(this), "load")) {
                return 0;
            }
            PerfCommands.checkSimulatorArgs(PerfCommands.withGateways(args, List.of("127.0.0.1:5500")));
            Home home = Home.current();
            StackShape stack = new Stack(home).requireRunning();
            if (!loadOptions.contains("--mqtt-gateways")) {
                args.addAll(List.of("--mqtt-gateways", String.join(",", stack.mqttAddresses())));
            }
            args.addAll(List.of("--gateways", String.join(",", stack.gatewayAddresses())));
            return Simulator.demo(home).run(args, null).exitCode();
        }
    }

    @Command(name = "jobs", mixinStandardHelpOptions = true,
            description = "The stack's Flink jobs (embedded or on its cluster): parallelism, max parallelism, state, last "
                    + "checkpoint and savepoint.")
    static final class Jobs implements Callable<Integer> {
        @Override
        public Integer call() {
            return JobsCli.run(List.of("--flink", new Stack(Home.current()).requireRunning().flinkRest(), "list"));
        }
    }

    @Command(name = "savepoint", mixinStandardHelpOptions = true,
            description = "A savepoint of a running job (with --stop: stop-with-savepoint); prints its path.")
    static final class Savepoint implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "JOB", description = "A short name from ./ckc jobs: delivery, poa-manager, echo, ...")
        String job;

        @Option(names = "--stop", description = "Stop the job with the savepoint")
        boolean stop;

        @Override
        public Integer call() {
            List<String> args = new ArrayList<>(List.of("--flink", new Stack(Home.current()).requireRunning().flinkRest(),
                    "savepoint", job));
            if (stop) {
                args.add("--stop");
            }
            return JobsCli.run(args);
        }
    }

    @Command(name = "rescale", mixinStandardHelpOptions = true,
            description = "Rescales a running job: stop-with-savepoint, then the same jar, class and flags resubmitted from "
                    + "it at the new parallelism (or --in-place, through the adaptive scheduler of a cluster started with "
                    + "./ckc flink-cluster start --adaptive; or --blue-green, the successor started from a savepoint "
                    + "beside the running job, which is cancelled once the successor has caught up); prints a RESULT "
                    + "line with the savepoint, restart and caught-up times. A refused request stops nothing.")
    static final class Rescale implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "JOB")
        String job;

        @Parameters(index = "1", paramLabel = "PARALLELISM")
        int parallelism;

        @Option(names = "--in-place", description = "Through the adaptive scheduler, no savepoint")
        boolean inPlace;

        @Option(names = "--blue-green", description = "Beside the running job from a savepoint; it is cancelled once the "
                + "successor has caught up: deliveries never stop")
        boolean blueGreen;

        @Override
        public Integer call() {
            if (inPlace && blueGreen) {
                throw new Ckc.Failure("--in-place or --blue-green, not both");
            }
            Home home = Home.current();
            String mode = blueGreen ? "blue-green" : inPlace ? "in-place" : "savepoint";
            return JobsCli.rescale(home, new Stack(home).requireRunning(), job, parallelism, mode, System.out).isEmpty() ? 1 : 0;
        }
    }

    @Command(name = "restore", mixinStandardHelpOptions = true, description = "Starts a job of the stack from a savepoint.")
    static final class Restore implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "JOB")
        String job;

        @Parameters(index = "1", paramLabel = "SAVEPOINT")
        String savepoint;

        @Option(names = "--parallelism", description = "Parallelism (default: the stack's)")
        Integer parallelism;

        @Override
        public Integer call() {
            Home home = Home.current();
            StackShape stack = new Stack(home).requireRunning();
            List<String> args = new ArrayList<>(List.of("--flink", stack.flinkRest(), "restore", job, savepoint, "--jar",
                    home.jobsJar().toString()));
            if (parallelism != null) {
                args.addAll(List.of("--parallelism", String.valueOf(parallelism)));
            }
            args.add("--");
            args.addAll(stack.resubmitFlags());
            return JobsCli.run(args);
        }
    }

    /**
     * Grouping rules in SQL ({@link RulesCommand}): check and try need no stack; a rule runs on the stack's Flink
     * as its own job, listed, stopped and replaced like the others. Everything after {@code sql} goes to the rules
     * command, with this checkout's tables, savepoints, jobs jar and the stack's Flink and flags filled in.
     */
    @Command(name = "sql", description = "Grouping rules in SQL: ./ckc sql FILE.sql [-- --variable value] runs one on the "
            + "stack; check FILE, try FILE --context SAMPLES.jsonl, list, stop RULE, replace RULE FILE. "
            + "./ckc sql --help shows the rules command's own help.")
    static final class Sql implements Callable<Integer> {
        private static final Set<String> NEED_STACK = Set.of("start", "list", "stop", "replace");

        @Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            Home home = Home.current();
            List<String> rest = new ArrayList<>(args);
            if (!rest.isEmpty() && rest.get(0).endsWith(".sql")) {
                rest.add(0, "start"); // ./ckc sql FILE.sql: the short form of start
            }
            List<String> command = new ArrayList<>(List.of("--tables", home.root.resolve("sql/tables.sql").toString(),
                    "--savepoint-dir", "file://" + home.state.resolve("flink/savepoints")));
            String sub = rest.isEmpty() ? "--help" : rest.get(0);
            if (NEED_STACK.contains(sub)) {
                StackShape stack = new Stack(home).requireRunning();
                command.addAll(List.of("--flink", stack.flinkRest()));
                if (sub.equals("start") || sub.equals("replace")) {
                    int dashes = rest.indexOf("--");
                    List<String> vars = dashes < 0 ? List.of() : new ArrayList<>(rest.subList(dashes + 1, rest.size()));
                    List<String> head = dashes < 0 ? rest : new ArrayList<>(rest.subList(0, dashes));
                    rest = new ArrayList<>(head);
                    rest.addAll(List.of("--jar", home.jobsJar().toString(), "--"));
                    rest.addAll(stack.resubmitFlags());
                    rest.addAll(vars);
                }
            }
            command.addAll(rest.isEmpty() ? List.of("--help") : rest);
            return new CommandLine(new RulesCommand()).execute(command.toArray(String[]::new));
        }
    }

    @Command(name = "drain", mixinStandardHelpOptions = true,
            description = "Asks the PoA manager to drain a gateway: it leaves the gateway list, then its nodes are handed over.")
    static final class Drain implements Callable<Integer> {
        @Parameters(paramLabel = "GATEWAY_ID")
        String gateway;

        @Override
        public Integer call() throws Exception {
            return drain(gateway, true);
        }
    }

    @Command(name = "undrain", mixinStandardHelpOptions = true, description = "Asks the PoA manager to take a drained gateway back.")
    static final class Undrain implements Callable<Integer> {
        @Parameters(paramLabel = "GATEWAY_ID")
        String gateway;

        @Override
        public Integer call() throws Exception {
            return drain(gateway, false);
        }
    }

    static int drain(String gateway, boolean drain) throws Exception {
        new Stack(Home.current()).requireRunning();
        if (!Topics.isValidGatewayId(gateway)) {
            throw new Ckc.Failure("'" + gateway + "' is not a gateway id");
        }
        DrainGateway.send(KafkaBroker.BOOTSTRAP, gateway, drain, Topics.DEFAULT);
        System.out.println((drain ? "Draining " : "No longer draining ") + gateway);
        return 0;
    }

    @Command(name = "flink-cluster", mixinStandardHelpOptions = true,
            description = "A real standalone Flink session cluster (JobManager and TaskManager processes from the Maven jars), "
                    + "web UI and REST on http://127.0.0.1:8081; then ./ckc up --flink http://127.0.0.1:8081.")
    static final class FlinkCluster implements Runnable {
        @Parameters(paramLabel = "start|stop")
        String action;

        @Option(names = "--adaptive", description = "The adaptive scheduler: ./ckc rescale JOB P --in-place rescales in place")
        boolean adaptive;

        @Option(names = "--taskmanagers", defaultValue = "1", description = "TaskManager processes (default "
                + "${DEFAULT-VALUE}); the jobs spread over them, and those of one that dies restart in another's free slots at once")
        int taskManagers;

        @Override
        public void run() {
            Home home = Home.current();
            FlinkRuntime flink = new Stack(home).flink();
            switch (action) {
                case "start" -> flink.startCluster(adaptive, taskManagers);
                case "stop" -> flink.stopCluster();
                default -> throw new Ckc.Failure("flink-cluster takes start or stop, not " + action);
            }
        }
    }

    @Command(name = "monitoring", mixinStandardHelpOptions = true,
            description = "Prometheus on :9090 over the stack (Debian's prometheus, installed on first use); check runs "
                    + "every query of every Grafana dashboard against it (exit 1 if a panel would be empty).")
    static final class MonitoringCommand implements Callable<Integer> {
        @Parameters(paramLabel = "start|check|stop")
        String action;

        @Override
        public Integer call() {
            Home home = Home.current();
            Stack stack = new Stack(home);
            switch (action) {
                case "start" -> new Monitoring(home, stack.processes()).start(stack.requireRunning());
                case "stop" -> stack.processes().stop("prometheus");
                case "check" -> {
                    if (!Monitoring.ready()) {
                        throw new Ckc.Failure("no Prometheus on :" + Monitoring.PORT
                                + ": './ckc up --monitoring' or './ckc monitoring start'");
                    }
                    return new CommandLine(new DashboardCheck()).execute("--prometheus", Monitoring.URL, "--dashboards",
                            home.root.resolve("monitoring/grafana/dashboards").toString());
                }
                default -> throw new Ckc.Failure("monitoring takes start, check or stop, not " + action);
            }
            return 0;
        }
    }

    @Command(name = "k8s", mixinStandardHelpOptions = true,
            description = "Writes (generate) or compares (check) the Kubernetes files generated from the code: topics, "
                    + "FlinkDeployments, rules, dashboards.")
    static final class K8s implements Callable<Integer> {
        @Parameters(paramLabel = "generate|check")
        String action;

        @Override
        public Integer call() {
            return new CommandLine(new Manifests()).execute(action, Home.current().root.toString());
        }
    }

    @Command(name = "docs", mixinStandardHelpOptions = true,
            description = "Writes (generate) or compares (check) the generated docs: docs/configuration.md from the "
                    + "gateway's settings, docs/schemas/ from the Kafka records.")
    static final class Docs implements Callable<Integer> {
        @Parameters(paramLabel = "generate|check")
        String action;

        @Override
        public Integer call() throws Exception {
            if (!action.equals("generate") && !action.equals("check")) {
                throw new Ckc.Failure("docs takes generate or check, not " + action);
            }
            int configuration = ConfigurationDoc.apply(action, Home.current().root);
            int schemas = RecordSchemas.apply(action, Home.current().root);
            return Math.max(configuration, schemas);
        }
    }
}
