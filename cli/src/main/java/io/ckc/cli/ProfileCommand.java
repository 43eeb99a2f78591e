package io.ckc.cli;

import io.ckc.perf.ProfileSummary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.zip.GZIPOutputStream;

/**
 * {@code ./ckc profile}: JDK Flight Recorder on every process of the stack and each running simulator for a
 * while, then per process an HTML flame graph (CPU samples) and the hottest frames; with Linux perf, every
 * thread's CPU too (JIT compiler, GC, kernel) per process. The files stay local (.gitignore).
 */
@Command(name = "profile", mixinStandardHelpOptions = true,
        description = "JFR and Linux perf on every stack process and simulator for SECONDS: flame graphs, CPU by thread "
                + "and by kind of code. --no-jfr: Linux perf alone (starting JFR in every JVM at once disturbs a loaded "
                + "two-core stack: each recompiles much of its code).")
final class ProfileCommand implements Callable<Integer> {

    private static final int NATIVE_HZ = 199;

    @Parameters(index = "0", defaultValue = "60", paramLabel = "SECONDS")
    int seconds;

    @Parameters(index = "1", arity = "0..1", paramLabel = "DIR", description = "Where to write (default: a new results folder)")
    Path out;

    @Option(names = "--no-jfr", description = "Linux perf alone")
    boolean noJfr;

    @Override
    public Integer call() throws Exception {
        if (seconds < 1) {
            throw new Ckc.Failure("SECONDS takes a positive number");
        }
        Home home = Home.current();
        Path dir = (out == null ? home.newResults("profile") : out).toAbsolutePath();
        Files.createDirectories(dir);
        Processes processes = new Processes(home);
        Map<String, Long> targets = new LinkedHashMap<>();
        for (String name : processes.known()) {
            if (processes.isRunning(name)) {
                targets.put(name, processes.pid(name).orElseThrow());
            }
        }
        int simulators = 0;
        for (ProcessHandle process : ProcessHandle.allProcesses().toList()) {
            if (process.info().commandLine().orElse("").contains(SimulatorMain.class.getName())) {
                targets.put("simulator-" + ++simulators, process.pid());
            }
        }
        if (targets.isEmpty()) {
            throw new Ckc.Failure("nothing to profile: ./ckc up (and a load) first");
        }
        if (!noJfr) {
            for (var target : targets.entrySet()) {
                try {
                    Ckc.runForOutput(List.of("jcmd", String.valueOf(target.getValue()), "JFR.start", "name=ckc-profile",
                            "settings=profile", "duration=" + seconds + "s", "filename=" + dir.resolve(target.getKey() + ".jfr")));
                } catch (Ckc.Failure e) {
                    Ckc.say("cannot record " + target.getKey() + " (pid " + target.getValue() + ")");
                }
            }
        }
        // Beside JFR, Linux perf where the machine lets it sample: JFR sees only threads running Java, not the
        // JIT compiler, the GC, system calls or the kernel, which on two cores are a large share of the CPU.
        Process perf = null;
        if (perfSamples()) {
            perf = new ProcessBuilder("perf", "record", "-e", "cpu-clock", "-F", String.valueOf(NATIVE_HZ), "-a", "-o",
                    dir.resolve("native.data").toString(), "--", "sleep", String.valueOf(seconds))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } else {
            Ckc.say("no Linux perf that can sample here: the JIT compiler, GC and kernel time are not profiled");
            if (noJfr) {
                throw new Ckc.Failure("--no-jfr needs Linux perf");
            }
        }
        Ckc.say("recording " + targets.size() + " processes for " + seconds + " s into " + dir + ": " + targets.keySet());
        Processes.sleep((seconds + 3) * 1000L);
        if (perf != null) {
            perf.waitFor();
            List<String> properties = new ArrayList<>(List.of("hz=" + NATIVE_HZ, "seconds=" + seconds));
            for (var target : targets.entrySet()) {
                properties.add("process." + target.getKey() + "=" + target.getValue());
                // names the JIT-compiled Java for perf
                new ProcessBuilder("jcmd", String.valueOf(target.getValue()), "Compiler.perfmap")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
            }
            Files.write(dir.resolve("native.properties"), properties);
            new ProcessBuilder("perf", "script", "-G", "-i", dir.resolve("native.data").toString(), "-F",
                    "comm,pid,tid,ip,sym,dso").redirectError(ProcessBuilder.Redirect.DISCARD)
                    .redirectOutput(dir.resolve("native.script").toFile()).start().waitFor();
            Files.deleteIfExists(dir.resolve("native.data"));
        }
        Capture.Printed summary = Capture.run(() -> {
            try {
                ProfileSummary.main(new String[] {dir.toString()});
                return 0;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        Files.writeString(dir.resolve("summary.txt"), summary.text());
        for (String name : targets.keySet()) {
            Path collapsed = dir.resolve(name + ".collapsed");
            if (Files.exists(collapsed) && Files.size(collapsed) > 0) {
                Ckc.runForOutput(List.of("java", "-jar", converterJar(home).toString(), "--title",
                        name + ": on-CPU samples, " + seconds + " s", collapsed.toString(),
                        dir.resolve("flame-" + name + ".html").toString()));
            }
        }
        gzip(dir.resolve("native.script"));
        return 0;
    }

    private static boolean perfSamples() {
        try {
            return new ProcessBuilder("perf", "record", "-e", "cpu-clock", "-F", "99", "-o", "/dev/null", "--", "true")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** async-profiler's converter from Maven Central, which ./ckc profile fetched into .ckc/lib/profiler. */
    private static Path converterJar(Home home) throws IOException {
        try (var jars = Files.list(home.lib("profiler"))) {
            return jars.filter(p -> p.getFileName().toString().startsWith("jfr-converter-")).findFirst()
                    .orElseThrow(() -> new Ckc.Failure("no jfr-converter jar in " + home.lib("profiler")));
        }
    }

    private static void gzip(Path file) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        try (var in = Files.newInputStream(file);
             var zipped = new GZIPOutputStream(Files.newOutputStream(file.resolveSibling(file.getFileName() + ".gz")))) {
            in.transferTo(zipped);
        }
        Files.delete(file);
    }
}
