package io.ckc.cli;

import io.ckc.jobs.ops.JobsCommand;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The operator commands ({@link JobsCommand}: list, savepoint, rescale, restore, submit) run in this JVM. */
final class JobsCli {

    private JobsCli() {
    }

    static int run(List<String> args) {
        return JobsCommand.execute(System.out, System.err, args.toArray(String[]::new));
    }

    /**
     * Rescales a job of the running stack by savepoint, {@code in-place} or {@code blue-green}; returns its RESULT line's
     * pairs (empty if it failed).
     */
    static Map<String, String> rescale(Home home, StackShape stack, String job, int parallelism, String mode,
                                       PrintStream out) {
        List<String> args = new ArrayList<>(List.of("--flink", stack.flinkRest(), "rescale", job,
                String.valueOf(parallelism), "--jar", home.jobsJar().toString()));
        if (!mode.equals("savepoint")) {
            args.add("--" + mode);
        }
        args.add("--");
        args.addAll(stack.resubmitFlags());
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream both = new PrintStream(new Tee(printed, out), true, StandardCharsets.UTF_8);
        JobsCommand.execute(both, both, args.toArray(String[]::new));
        Map<String, String> result = new LinkedHashMap<>();
        for (String line : printed.toString(StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("RESULT ")) {
                for (String pair : line.substring(7).trim().split(" ")) {
                    int eq = pair.indexOf('=');
                    if (eq > 0) {
                        result.put(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                }
            }
        }
        return result;
    }
}
