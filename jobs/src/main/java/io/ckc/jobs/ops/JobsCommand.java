package io.ckc.jobs.ops;

import io.ckc.jobs.JobCatalog;
import io.ckc.jobs.JobDirectories;
import io.ckc.jobs.Scaling;
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
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The operator commands behind {@code ./ckc jobs|savepoint|rescale|restore}, and the submissions of
 * {@code ./ckc up --flink} and {@code ./ckc sql}: CKC's jobs on a Flink
 * cluster (the embedded one or a real one) through its REST API. JOB is a job's short name, its
 * Flink name without {@code ckc-}. Every request is checked before anything is stopped; an error is
 * one line on stderr and exit code 1.
 */
@Command(name = "ckc-jobs", mixinStandardHelpOptions = true,
        subcommands = {JobsCommand.ListJobs.class, JobsCommand.TakeSavepoint.class, JobsCommand.Rescale.class,
                JobsCommand.Restore.class, JobsCommand.Submit.class, JobsCommand.Run.class},
        description = "Submit, list, savepoint, rescale and restore CKC's Flink jobs.")
public final class JobsCommand {

    /** Thrown for a request that cannot be carried out: its message is the one line the user sees. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    @Option(names = "--flink", required = true, description = "Flink REST URL")
    String flink;

    @Option(names = "--savepoint-dir", description = "Where savepoints go (default: the cluster's state.savepoints.dir)")
    String savepointDir;

    @Option(names = "--caught-up-records", defaultValue = "1000",
            description = "A rescaled job has caught up once its sources are at most this many records behind (default ${DEFAULT-VALUE})")
    long caughtUpRecords;

    @Option(names = "--caught-up-wait", defaultValue = "120",
            description = "Seconds to wait at most for a rescaled job to catch up; 0: do not wait (default ${DEFAULT-VALUE})")
    long caughtUpWaitSeconds;

    PrintStream out = System.out;
    PrintStream err = System.err;

    FlinkRest rest() {
        return new FlinkRest(flink);
    }

    /** The running CKC job called {@code name}, or a refusal that lists the running ones. */
    FlinkRest.Job runningJob(FlinkRest rest, String name) throws IOException, Refused {
        Optional<FlinkRest.Job> job = rest.running(JobCatalog.NAME_PREFIX + name);
        if (job.isEmpty()) {
            List<String> running = rest.jobs().stream().filter(j -> j.state().equals("RUNNING"))
                    .map(j -> j.name().replaceFirst("^" + JobCatalog.NAME_PREFIX, "")).toList();
            throw new Refused("no running job '" + name + "'; running: " + (running.isEmpty() ? "none" : String.join(", ", running)));
        }
        return job.get();
    }

    /** The stack's catalog entry called {@code name}: what a resubmission runs. */
    static JobCatalog.Launch launchOf(String name, List<String> stackFlags) throws Refused {
        List<JobCatalog.Launch> stack = JobCatalog.stack(ParameterTool.fromArgs(stackFlags.toArray(String[]::new)));
        return stack.stream().filter(l -> l.name().equals(name)).findFirst().orElseThrow(() -> new Refused(
                "'" + name + "' is not a job of the stack's catalog (" + String.join(", ",
                        stack.stream().map(JobCatalog.Launch::name).toList()) + "): it cannot be resubmitted from here"));
    }

    static int checkedParallelism(int parallelism, int maxParallelism) throws Refused {
        if (parallelism < 1 || parallelism > maxParallelism) {
            throw new Refused("parallelism must be between 1 and the job's max parallelism " + maxParallelism
                    + ", got " + parallelism);
        }
        return parallelism;
    }

    static Path checkedJar(Path jar) throws Refused {
        if (jar == null || !Files.isRegularFile(jar)) {
            throw new Refused("no job jar at " + jar + ": build it first (./ckc build)");
        }
        return jar;
    }

    /** A savepoint given as a path or a file: URI must exist where this command runs (the local clusters). */
    static String checkedSavepoint(String savepoint) throws Refused {
        String local = savepoint.startsWith("file:") ? savepoint.replaceFirst("^file:(//)?", "") : savepoint;
        if (!savepoint.contains("://") || savepoint.startsWith("file:")) {
            if (!Files.isDirectory(Path.of(local)) && !Files.isRegularFile(Path.of(local))) {
                throw new Refused("no savepoint at " + savepoint);
            }
        }
        return savepoint;
    }

    /** A savepoint of a running job, stopping it or not; refused with {@code failed} and why, the job as it was. */
    FlinkRest.Savepoint savepoint(FlinkRest rest, FlinkRest.Job running, boolean stop, String failed)
            throws IOException, Refused {
        FlinkRest.Savepoint savepoint = rest.savepoint(running.id(), savepointDir, stop, Duration.ofMinutes(5));
        if (savepoint.location() == null) {
            throw new Refused(failed + ": " + savepoint.failure());
        }
        return savepoint;
    }

    /**
     * Milliseconds from {@code since} until the job's sources are back within {@code --caught-up-records}
     * of the end of their topics; "unknown" if its sources report no lag (an idle job), stay behind for
     * {@code --caught-up-wait}, or that is 0.
     */
    String caughtUp(FlinkRest rest, String jobId, long since) throws IOException {
        if (caughtUpWaitSeconds <= 0) {
            return "unknown";
        }
        return rest.awaitCaughtUp(jobId, caughtUpRecords, Duration.ofSeconds(caughtUpWaitSeconds))
                ? String.valueOf((System.nanoTime() - since) / 1_000_000) : "unknown";
    }

    private int run(Callable<Void> action) {
        return attempt(err, action);
    }

    /** Runs one operator command: exit code 0, or 1 with one line on {@code err} (the commands' shared way to fail). */
    static int attempt(PrintStream err, Callable<Void> action) {
        try {
            action.call();
            return 0;
        } catch (Refused | IOException e) {
            err.println("ckc: " + e.getMessage());
        } catch (Exception e) {
            err.println("ckc: " + e);
        }
        return 1;
    }

    /** Times as the commands print them: UTC, to the second. */
    static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

    /** States of a job that will not run again. */
    static final java.util.Set<String> TERMINAL = java.util.Set.of("FINISHED", "CANCELED", "FAILED", "SUSPENDED");

    @Command(name = "list", description = "The CKC jobs not yet ended: name, id, parallelism, max parallelism, state, last checkpoint and savepoint.")
    static final class ListJobs implements Callable<Integer> {
        @ParentCommand
        JobsCommand parent;

        @Override
        public Integer call() {
            return parent.run(() -> {
                parent.out.printf("%-28s %-32s %4s %4s %-10s %-20s %s%n", "JOB", "ID", "PAR", "MAX", "STATE",
                        "LAST CHECKPOINT UTC", "LAST SAVEPOINT");
                for (FlinkRest.Job job : parent.rest().jobs()) {
                    if (!job.name().startsWith(JobCatalog.NAME_PREFIX) || TERMINAL.contains(job.state())) {
                        continue; // the cluster keeps finished jobs; a rescaled job's old run is one
                    }
                    parent.out.printf(Locale.ROOT, "%-28s %-32s %4d %4d %-10s %-20s %s%n",
                            job.name().substring(JobCatalog.NAME_PREFIX.length()), job.id(), job.parallelism(),
                            job.maxParallelism(), job.state(),
                            job.lastCheckpointMs() == null ? "-" : UTC_TIME.format(Instant.ofEpochMilli(job.lastCheckpointMs())),
                            job.lastSavepoint() == null ? "-" : job.lastSavepoint());
                }
                return null;
            });
        }
    }

    @Command(name = "savepoint", description = "Takes a savepoint of a running job (--stop: and stops it); prints its path.")
    static final class TakeSavepoint implements Callable<Integer> {
        @ParentCommand
        JobsCommand parent;

        @Parameters(index = "0", description = "JOB")
        String job;

        @Option(names = "--stop", description = "Stop the job with the savepoint")
        boolean stop;

        @Override
        public Integer call() {
            return parent.run(() -> {
                FlinkRest rest = parent.rest();
                FlinkRest.Job running = parent.runningJob(rest, job);
                long start = System.nanoTime();
                FlinkRest.Savepoint savepoint = parent.savepoint(rest, running, stop, "savepoint of " + job + " failed");
                parent.out.printf(Locale.ROOT, "RESULT op=%s job=%s savepoint_ms=%d savepoint=%s%n",
                        stop ? "stop-with-savepoint" : "savepoint", job, (System.nanoTime() - start) / 1_000_000,
                        savepoint.location());
                return null;
            });
        }
    }

    @Command(name = "rescale", description = "Stops a job with a savepoint and starts it again from there at a new parallelism.")
    static final class Rescale implements Callable<Integer> {
        @ParentCommand
        JobsCommand parent;

        @Parameters(index = "0", description = "JOB")
        String job;

        @Parameters(index = "1", description = "PARALLELISM")
        int parallelism;

        @Option(names = "--jar", required = true, description = "The jobs jar the job is resubmitted from")
        Path jar;

        @Option(names = "--in-place", description = "Rescale the running job through the adaptive scheduler, no savepoint")
        boolean inPlace;

        @Option(names = "--blue-green", description = "Keep the job running while its successor starts beside it from a "
                + "savepoint at the new parallelism; cancel it once the successor has caught up")
        boolean blueGreen;

        @Parameters(index = "2..*", description = "The stack's job flags (as given to ./ckc up after --)")
        List<String> stackFlags = new ArrayList<>();

        @Override
        public Integer call() {
            return parent.run(() -> {
                FlinkRest rest = parent.rest();
                FlinkRest.Job running = parent.runningJob(rest, job);
                checkedParallelism(parallelism, running.maxParallelism());
                if (inPlace && blueGreen) {
                    throw new Refused("--in-place or --blue-green, not both");
                }
                if (inPlace) {
                    inPlace(rest, running);
                    return null;
                }
                JobCatalog.Launch launch = launchOf(job, stackFlags);
                if (blueGreen && !launch.kind().blueGreen()) {
                    throw new Refused(job + " is not rescaled blue/green: two of it side by side are not shown harmless "
                            + "(docs/operations.md); rescale it by savepoint (without --blue-green)");
                }
                String jarId = rest.upload(checkedJar(jar)); // before anything stops: a failed upload changes nothing
                if (blueGreen) {
                    blueGreen(rest, running, launch, jarId);
                    return null;
                }
                long start = System.nanoTime();
                FlinkRest.Savepoint savepoint = parent.savepoint(rest, running, true,
                        "stop-with-savepoint of " + job + " failed, the job keeps running");
                long saved = System.nanoTime();
                String id = start(rest, jarId, launch, parallelism, stackFlags, savepoint.location());
                long runningAt = System.nanoTime();
                String caughtUp = parent.caughtUp(rest, id, runningAt);
                parent.out.printf(Locale.ROOT, "RESULT op=savepoint job=%s from=%d to=%d savepoint_ms=%d restart_ms=%d "
                                + "caught_up_ms=%s total_ms=%d job_id=%s savepoint=%s%n", job, running.parallelism(),
                        parallelism, (saved - start) / 1_000_000, (runningAt - saved) / 1_000_000, caughtUp,
                        (runningAt - start) / 1_000_000, id, savepoint.location());
                return null;
            });
        }

        /**
         * Blue/green: a savepoint of the running job (blue) without stopping it, its successor (green) started from it
         * at the new parallelism beside it, and blue cancelled once green has caught up (its sources' lag under the
         * bound of {@code --caught-up-records}), so deliveries never stop. Meanwhile both read and write the same
         * topics: green repeats what blue did after the savepoint, under the same ids, and the nodes drop the repeats.
         * A green that does not catch up in time is cancelled instead, and blue runs on unchanged.
         */
        private void blueGreen(FlinkRest rest, FlinkRest.Job blue, JobCatalog.Launch launch, String jarId)
                throws IOException, Refused {
            long start = System.nanoTime();
            FlinkRest.Savepoint savepoint = parent.savepoint(rest, blue, false,
                    "the savepoint of " + job + " failed, the job runs on unchanged");
            long saved = System.nanoTime();
            String green = start(rest, jarId, launch, parallelism, stackFlags, savepoint.location());
            long runningAt = System.nanoTime();
            String caughtUp = parent.caughtUp(rest, green, runningAt);
            if (caughtUp.equals("unknown")) {
                rest.cancel(green);
                throw new Refused("the successor of " + job + " (" + green + ") did not catch up within "
                        + parent.caughtUpWaitSeconds + " s and was cancelled; " + job + " runs on at parallelism "
                        + blue.parallelism());
            }
            rest.cancel(blue.id());
            long retired = System.nanoTime();
            parent.out.printf(Locale.ROOT, "RESULT op=blue-green job=%s from=%d to=%d savepoint_ms=%d restart_ms=%d "
                            + "caught_up_ms=%s overlap_ms=%d total_ms=%d job_id=%s savepoint=%s%n", job, blue.parallelism(),
                    parallelism, (saved - start) / 1_000_000, (runningAt - saved) / 1_000_000, caughtUp,
                    (retired - saved) / 1_000_000, (retired - start) / 1_000_000, green, savepoint.location());
        }

        /**
         * The adaptive scheduler's resource requirements: the job restarts from its latest checkpoint at the
         * new parallelism, one checkpoint triggered for it. Only a cluster started with the adaptive scheduler can.
         */
        private void inPlace(FlinkRest rest, FlinkRest.Job running) throws IOException, Refused {
            if (!rest.adaptiveScheduler()) {
                throw new Refused("--in-place needs a cluster with the adaptive scheduler (./ckc flink-cluster start "
                        + "--adaptive, then ./ckc up --flink URL); this one has the default scheduler: rescale by savepoint");
            }
            long start = System.nanoTime();
            rest.requireParallelism(running.id(), parallelism);
            // FLIP-461: the scheduler restarts the job right after its next completed checkpoint (or after
            // rescale-trigger.max-delay), so the restart replays next to nothing. Ask for that checkpoint now
            // instead of waiting out the interval, again until the job runs at the new parallelism.
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (!rest.awaitRunning(running.id(), parallelism, Duration.ofSeconds(2))) {
                if (System.nanoTime() > deadline) {
                    throw new Refused(job + " did not reach parallelism " + parallelism + " within 2 minutes");
                }
                rest.triggerCheckpoint(running.id());
            }
            long rescaled = System.nanoTime();
            String caughtUp = parent.caughtUp(rest, running.id(), rescaled);
            parent.out.printf(Locale.ROOT, "RESULT op=in-place job=%s from=%d to=%d rescale_ms=%d caught_up_ms=%s job_id=%s%n",
                    job, running.parallelism(), parallelism, (rescaled - start) / 1_000_000, caughtUp, running.id());
        }
    }

    @Command(name = "restore", description = "Starts a job of the stack from a savepoint.")
    static final class Restore implements Callable<Integer> {
        @ParentCommand
        JobsCommand parent;

        @Parameters(index = "0", description = "JOB")
        String job;

        @Parameters(index = "1", description = "SAVEPOINT")
        String savepoint;

        @Option(names = "--parallelism", description = "Parallelism (default: the stack's)")
        Integer parallelism;

        @Option(names = "--jar", required = true, description = "The jobs jar")
        Path jar;

        @Parameters(index = "2..*", description = "The stack's job flags (as given to ./ckc up after --)")
        List<String> stackFlags = new ArrayList<>();

        @Override
        public Integer call() {
            return parent.run(() -> {
                FlinkRest rest = parent.rest();
                if (rest.running(JobCatalog.NAME_PREFIX + job).isPresent()) {
                    throw new Refused(job + " is running: rescale it, or stop it with './ckc savepoint " + job
                            + " --stop' first");
                }
                checkedSavepoint(savepoint);
                JobCatalog.Launch launch = launchOf(job, stackFlags);
                ParameterTool flags = launch.params(ParameterTool.fromArgs(stackFlags.toArray(String[]::new)));
                int target = checkedParallelism(parallelism == null ? launch.parallelism() : parallelism,
                        Scaling.fromArgs(flags, -1).maxParallelism());
                String jarId = rest.upload(checkedJar(jar));
                long start = System.nanoTime();
                String id = start(rest, jarId, launch, target, stackFlags, savepoint);
                parent.out.printf(Locale.ROOT, "RESULT op=restore job=%s to=%d restart_ms=%d job_id=%s savepoint=%s%n", job,
                        target, (System.nanoTime() - start) / 1_000_000, id, savepoint);
                return null;
            });
        }
    }

    @Command(name = "submit", description = "Uploads the jobs jar and starts the stack's jobs from the job catalog; "
            + "prints each job's name and id once it runs.")
    static final class Submit implements Callable<Integer> {
        @ParentCommand
        JobsCommand parent;

        @Option(names = "--jar", required = true, description = "The jobs jar")
        Path jar;

        @Option(names = "--fresh", description = "Start every job with empty state, not from its latest checkpoint or "
                + "savepoint (a Kafka that is new too)")
        boolean fresh;

        @Parameters(description = "The stack's flags: --bootstrap, --delivery-parallelism, --echo-parallelism, job flags")
        List<String> stackFlags = new ArrayList<>();

        /**
         * Each job of the catalog that does not run yet, from its latest checkpoint or savepoint unless {@code --fresh}:
         * after a JobManager restarted without high availability (a standalone cluster), submitting again resumes the
         * MTD buffers, in-flight deliveries and groups instead of starting empty ({@link JobDirectories}).
         */
        @Override
        public Integer call() {
            return parent.run(() -> {
                FlinkRest rest = parent.rest();
                String jarId = rest.upload(checkedJar(jar));
                Map<String, String> config = fresh ? Map.of() : rest.jobManagerConfig();
                for (JobCatalog.Launch launch : JobCatalog.stack(ParameterTool.fromArgs(stackFlags.toArray(String[]::new)))) {
                    Optional<FlinkRest.Job> live = rest.live(launch.flinkName());
                    if (live.isPresent()) {
                        // Why: a cluster with high availability recovered it, or an earlier submit started it
                        parent.out.println(launch.flinkName() + " " + live.get().id() + " already " + live.get().state());
                        continue;
                    }
                    String from = fresh ? null : JobDirectories.latest(config.get(CHECKPOINTS_KEY),
                            config.get(SAVEPOINTS_KEY), launch.flinkName()).orElse(null);
                    parent.out.println(launch.flinkName() + " " + start(rest, jarId, launch, launch.parallelism(),
                            stackFlags, from));
                    if (from != null) {
                        parent.out.println("  resumed from " + from);
                    }
                }
                return null;
            });
        }
    }

    static final String CHECKPOINTS_KEY = "execution.checkpointing.dir";
    static final String SAVEPOINTS_KEY = "execution.checkpointing.savepoint-dir";

    @Command(name = "run", description = "Uploads the jobs jar and starts one entry class (a SQL rule's runner); prints the job id once it runs.")
    static final class Run implements Callable<Integer> {
        @ParentCommand
        JobsCommand parent;

        @Parameters(index = "0", description = "The entry class")
        String entryClass;

        @Option(names = "--jar", required = true, description = "The jobs jar")
        Path jar;

        @Option(names = "--parallelism", defaultValue = "1", description = "Parallelism (default ${DEFAULT-VALUE})")
        int parallelism;

        @Parameters(index = "1..*", description = "The job's flags")
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            return parent.run(() -> {
                FlinkRest rest = parent.rest();
                String id = rest.run(rest.upload(checkedJar(jar)), entryClass, parallelism, args, null);
                if (!rest.awaitRunning(id, 0, Duration.ofMinutes(2))) {
                    throw new Refused(entryClass + " (job " + id + ") did not start running: see the Flink log");
                }
                parent.out.println(id);
                return null;
            });
        }
    }

    /**
     * Starts a job of the catalog at a parallelism, from a savepoint if one is given, and waits until it
     * runs: the stack's flags, then the job's own.
     */
    static String start(FlinkRest rest, String jarId, JobCatalog.Launch launch, int parallelism,
                        List<String> stackFlags, String savepoint) throws IOException, Refused {
        List<String> args = new ArrayList<>(stackFlags);
        args.addAll(launch.args(ParameterTool.fromArgs(stackFlags.toArray(String[]::new))));
        args.addAll(List.of("--parallelism", String.valueOf(parallelism)));
        String from = savepoint == null ? "" : " from " + savepoint;
        String id;
        try {
            id = rest.run(jarId, launch.kind().entryClass(), parallelism, args, savepoint);
        } catch (IOException e) {
            throw new Refused("cannot start " + launch.name() + from + " (" + e.getMessage() + ")"
                    + (savepoint == null ? "" : "; start it again with: ./ckc restore " + launch.name() + " " + savepoint));
        }
        if (!rest.awaitRunning(id, 0, Duration.ofMinutes(2))) {
            throw new Refused(launch.name() + " (job " + id + ") is not running 2 minutes after its start" + from);
        }
        return id;
    }

    /** Runs one command line with its output on {@code out} and its refusals on {@code err}; returns the exit code. */
    public static int execute(PrintStream out, PrintStream err, String... args) {
        JobsCommand command = new JobsCommand();
        command.out = out;
        command.err = err;
        return new CommandLine(command).execute(args);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new JobsCommand()).execute(args));
    }
}
