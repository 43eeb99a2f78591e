package io.ckc.jobs.ops;

import io.ckc.jobs.sql.GroupingRule;
import io.ckc.jobs.sql.RuleTrial;
import io.ckc.jobs.sql.SqlRunnerJob;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.util.ParameterTool;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The commands behind {@code ./ckc sql}: grouping rules checked and tried locally, then started,
 * listed, stopped and replaced on the stack's Flink like its other jobs. A rule's Flink job is
 * {@code ckc-sql-<rule>}, labelled with its definer id. Errors are one line on stderr (a rule's with
 * {@code FILE:LINE:COLUMN}) and exit code 1, with nothing changed.
 */
@Command(name = "ckc-sql", mixinStandardHelpOptions = true,
        subcommands = {RulesCommand.Check.class, RulesCommand.Try.class, RulesCommand.Start.class,
                RulesCommand.ListRules.class, RulesCommand.Stop.class, RulesCommand.Replace.class},
        description = "Check, try, start, list, stop and replace SQL grouping rules.")
public final class RulesCommand {

    @Option(names = "--flink", description = "Flink REST URL (start, list, stop, replace)")
    String flink;

    @Option(names = "--tables", defaultValue = "sql/tables.sql", description = "The tables every rule runs against (default ${DEFAULT-VALUE})")
    String tables;

    @Option(names = "--savepoint-dir", description = "Where replace puts the old rule's savepoint (default: the cluster's)")
    String savepointDir;

    PrintStream out = System.out;
    PrintStream err = System.err;

    /** A rule file with the flags given after it, as the runner reads them (the same flags start its job). */
    record Loaded(String file, SqlRunnerJob job, List<String> flags) {
        GroupingRule rule() {
            return job.rule();
        }

        String ruleName() {
            return job.name().substring(SqlRunnerJob.NAME_PREFIX.length());
        }
    }

    Loaded load(String file, List<String> flags) throws JobsCommand.Refused {
        if (!Files.isRegularFile(Path.of(file))) {
            throw new JobsCommand.Refused("no rule file " + file);
        }
        List<String> args = new ArrayList<>(List.of("--sql", file, "--tables", tables));
        args.addAll(flags);
        try {
            return new Loaded(file, SqlRunnerJob.fromArgs(ParameterTool.fromArgs(args.toArray(String[]::new))), args);
        } catch (GroupingRule.RuleError e) {
            throw new JobsCommand.Refused(e.describe());
        } catch (IllegalArgumentException e) {
            throw new JobsCommand.Refused(file + ": " + e.getMessage());
        }
    }

    /** Parses and plans the rule against the tables in a local environment: what the cluster would run. */
    void check(Loaded loaded) throws JobsCommand.Refused {
        try {
            // Planned, never run: the JVM's own environment (a local one from the command line).
            StreamTableEnvironment tables = StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
            loaded.job().plan(tables).explain();
        } catch (GroupingRule.RuleError e) {
            throw new JobsCommand.Refused(e.describe());
        } catch (RuntimeException e) {
            throw new JobsCommand.Refused(loaded.file() + ": " + e.getMessage());
        }
    }

    FlinkRest rest() throws JobsCommand.Refused {
        if (flink == null) {
            throw new JobsCommand.Refused("no Flink cluster given (--flink URL): is the stack up?");
        }
        return new FlinkRest(flink);
    }

    /** The running rules: job, rule and definer, from each rule job's labels. */
    record RunningRule(FlinkRest.Job job, String rule, String definer, long startMs) {
    }

    List<RunningRule> runningRules(FlinkRest rest) throws IOException {
        List<RunningRule> rules = new ArrayList<>();
        for (FlinkRest.Job job : rest.jobs()) {
            if (!job.name().startsWith(SqlRunnerJob.NAME_PREFIX) || JobsCommand.TERMINAL.contains(job.state())) {
                continue;
            }
            Map<String, String> labels = rest.userConfig(job.id());
            rules.add(new RunningRule(job, job.name().substring(SqlRunnerJob.NAME_PREFIX.length()),
                    labels.getOrDefault(SqlRunnerJob.DEFINER_LABEL, "?"), rest.startTime(job.id())));
        }
        return rules;
    }

    Optional<RunningRule> runningRule(FlinkRest rest, String rule) throws IOException {
        return runningRules(rest).stream().filter(r -> r.rule().equals(rule)).findFirst();
    }

    /** Stops a running rule with a savepoint; returns its path, or refuses with the rule still running. */
    String stopWithSavepoint(FlinkRest rest, RunningRule running) throws IOException, JobsCommand.Refused {
        FlinkRest.Savepoint savepoint = rest.savepoint(running.job().id(), savepointDir, true, Duration.ofMinutes(5));
        if (savepoint.location() == null) {
            throw new JobsCommand.Refused("stop-with-savepoint of rule " + running.rule() + " failed, it keeps running: "
                    + savepoint.failure());
        }
        return savepoint.location();
    }

    /** Uploads the jar and runs the rule's job, from a savepoint if given; returns its id once it runs. */
    String start(FlinkRest rest, Path jar, Loaded loaded, String savepoint) throws IOException, JobsCommand.Refused {
        String id = rest.run(rest.upload(JobsCommand.checkedJar(jar)), SqlRunnerJob.class.getName(), 1,
                loaded.flags(), savepoint);
        if (!rest.awaitRunning(id, 0, Duration.ofMinutes(2))) {
            throw new JobsCommand.Refused("rule " + loaded.ruleName() + " (job " + id + ") did not start running: see the Flink log");
        }
        return id;
    }

    private int run(Callable<Void> action) {
        return JobsCommand.attempt(err, action);
    }

    private static String describe(GroupingRule rule) {
        return (rule.isShort() ? "short form" : "full form") + ", definer " + rule.definer();
    }

    @Command(name = "check", description = "Parses and plans a rule against the tables; no cluster needed.")
    static final class Check implements Callable<Integer> {
        @ParentCommand
        RulesCommand parent;

        @Parameters(index = "0", description = "FILE")
        String file;

        @Parameters(index = "1..*", description = "The rule's variables (--name value)")
        List<String> flags = new ArrayList<>();

        @Override
        public Integer call() {
            return parent.run(() -> {
                Loaded loaded = parent.load(file, flags);
                parent.check(loaded);
                parent.out.println(file + ": ok (" + describe(loaded.rule()) + ")");
                return null;
            });
        }
    }

    @Command(name = "try", description = "Runs a short-form rule on sample context reports (JSON lines) and prints each node's groups.")
    static final class Try implements Callable<Integer> {
        @ParentCommand
        RulesCommand parent;

        @Parameters(index = "0", description = "FILE")
        String file;

        @Option(names = "--context", required = true, description = "Sample context reports, one ContextReport JSON per line")
        Path context;

        @Parameters(index = "1..*", description = "The rule's variables (--name value)")
        List<String> flags = new ArrayList<>();

        @Override
        public Integer call() {
            return parent.run(() -> {
                Loaded loaded = parent.load(file, flags);
                if (!Files.isRegularFile(context)) {
                    throw new JobsCommand.Refused("no sample file " + context);
                }
                RuleTrial.Outcome outcome;
                try {
                    outcome = RuleTrial.run(loaded.job().tables(), loaded.rule(), Files.readAllLines(context));
                } catch (GroupingRule.RuleError e) {
                    throw new JobsCommand.Refused(e.describe());
                }
                parent.out.printf("%-24s %s%n", "NODE", "GROUPS (" + loaded.rule().definer() + "/...)");
                for (RuleTrial.Groups g : outcome.groups().values()) {
                    parent.out.printf(Locale.ROOT, "%-24s %s%s%n", g.mnId(),
                            g.groups().isEmpty() ? "-" : String.join(" ", g.groups()),
                            g.expiresAt() == null ? "" : "  (leased until " + JobsCommand.UTC_TIME.format(Instant.ofEpochMilli(g.expiresAt())) + " UTC)");
                }
                if (outcome.malformed() > 0) {
                    parent.out.println(outcome.malformed() + " sample(s) not a context report: dead letters on the stack");
                }
                return null;
            });
        }
    }

    @Command(name = "start", description = "Checks a rule, then runs it on the stack's Flink as its own job.")
    static final class Start implements Callable<Integer> {
        @ParentCommand
        RulesCommand parent;

        @Parameters(index = "0", description = "FILE")
        String file;

        @Option(names = "--jar", required = true, description = "The jobs jar")
        Path jar;

        @Parameters(index = "1..*", description = "The stack's flags and the rule's variables")
        List<String> flags = new ArrayList<>();

        @Override
        public Integer call() {
            return parent.run(() -> {
                Loaded loaded = parent.load(file, flags);
                parent.check(loaded);
                FlinkRest rest = parent.rest();
                for (RunningRule running : parent.runningRules(rest)) {
                    if (running.rule().equals(loaded.ruleName())) {
                        throw new JobsCommand.Refused("rule " + loaded.ruleName() + " runs already (job " + running.job().id()
                                + "): ./ckc sql replace " + loaded.ruleName() + " " + file);
                    }
                    if (running.definer().equals(loaded.rule().definer())) {
                        throw new JobsCommand.Refused("definer id " + loaded.rule().definer() + " is in use by rule "
                                + running.rule() + ": two rules would overwrite each other's memberships");
                    }
                }
                String id = parent.start(rest, jar, loaded, null);
                parent.out.println("rule " + loaded.ruleName() + " (" + describe(loaded.rule()) + ") runs as Flink job " + id);
                return null;
            });
        }
    }

    @Command(name = "list", description = "The running rules: rule, definer id, job id, state, started.")
    static final class ListRules implements Callable<Integer> {
        @ParentCommand
        RulesCommand parent;

        @Override
        public Integer call() {
            return parent.run(() -> {
                parent.out.printf("%-20s %-20s %-32s %-10s %s%n", "RULE", "DEFINER", "JOB", "STATE", "STARTED UTC");
                for (RunningRule r : parent.runningRules(parent.rest())) {
                    parent.out.printf("%-20s %-20s %-32s %-10s %s%n", r.rule(), r.definer(), r.job().id(), r.job().state(),
                            JobsCommand.UTC_TIME.format(Instant.ofEpochMilli(r.startMs())));
                }
                return null;
            });
        }
    }

    @Command(name = "stop", description = "Stops a running rule (with a savepoint, printed); its memberships stay as last written.")
    static final class Stop implements Callable<Integer> {
        @ParentCommand
        RulesCommand parent;

        @Parameters(index = "0", description = "RULE")
        String rule;

        @Override
        public Integer call() {
            return parent.run(() -> {
                FlinkRest rest = parent.rest();
                RunningRule running = parent.runningRule(rest, rule).orElseThrow(() -> new JobsCommand.Refused(
                        "no running rule '" + rule + "': see ./ckc sql list"));
                String savepoint = parent.stopWithSavepoint(rest, running);
                parent.out.println("rule " + rule + " stopped; savepoint " + savepoint);
                return null;
            });
        }
    }

    @Command(name = "replace", description = "Checks the new version of a rule, stops the running one with a savepoint and starts the new one.")
    static final class Replace implements Callable<Integer> {
        @ParentCommand
        RulesCommand parent;

        @Parameters(index = "0", description = "RULE")
        String rule;

        @Parameters(index = "1", description = "FILE")
        String file;

        @Option(names = "--jar", required = true, description = "The jobs jar")
        Path jar;

        @Parameters(index = "2..*", description = "The stack's flags and the rule's variables")
        List<String> flags = new ArrayList<>();

        @Override
        public Integer call() {
            return parent.run(() -> {
                List<String> named = new ArrayList<>(flags);
                // The new file runs under the old rule's name, and reads the context from the beginning.
                named.addAll(List.of("--rule", rule, "--startup-mode", "earliest-offset"));
                Loaded loaded = parent.load(file, named);
                parent.check(loaded);
                FlinkRest rest = parent.rest();
                RunningRule running = parent.runningRule(rest, rule).orElseThrow(() -> new JobsCommand.Refused(
                        "no running rule '" + rule + "': start it with ./ckc sql " + file));
                if (!running.definer().equals(loaded.rule().definer())) {
                    throw new JobsCommand.Refused("the new version has definer id " + loaded.rule().definer() + ", the running one "
                            + running.definer() + ": stop the rule and start the new one, or keep the definer id");
                }
                String savepoint = parent.stopWithSavepoint(rest, running);
                // A new query is a new plan, so no operator state carries over (the savepoint keeps the old
                // version's, to go back to). The new version reads ckc.context from its beginning instead, so
                // it rewrites every node's groups, by the same keys: no membership of the old version stays.
                String id = parent.start(rest, jar, loaded, null);
                parent.out.println("rule " + rule + " replaced: old version stopped (savepoint " + savepoint
                        + "), new version runs as Flink job " + id);
                return null;
            });
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new RulesCommand()).execute(args));
    }
}
