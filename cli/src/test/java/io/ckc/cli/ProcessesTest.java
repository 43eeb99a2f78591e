package io.ckc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

class ProcessesTest {

    @Test
    void aLineIsLookedForOnlyInWhatTheLogGotSinceTheWaitBegan(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("server.log");
        assertThat(Processes.size(log)).as("no log yet").isZero();
        Files.writeString(log, "[1] INFO Kafka Server started\n");
        long from = Processes.size(log);

        assertThat(Processes.containsAfter(log, from, "Kafka Server started")).as("the last start's line").isFalse();
        Files.writeString(log, "[2] INFO recovering segments\n", StandardOpenOption.APPEND);
        assertThat(Processes.containsAfter(log, from, "Kafka Server started")).isFalse();
        Files.writeString(log, "[3] INFO Kafka Server started\n", StandardOpenOption.APPEND);
        assertThat(Processes.containsAfter(log, from, "Kafka Server started")).isTrue();

        Files.writeString(log, "[4] INFO Kafka Server started\n"); // rolled over: shorter than where the wait began
        assertThat(Processes.containsAfter(log, from + 100, "Kafka Server started")).isTrue();
        assertThat(Processes.containsAfter(dir.resolve("absent.log"), 0, "Kafka Server started")).isFalse();
    }

    @Test
    void flinkAndKafkaRunOnJemallocWhereTheMachineHasItAndOnTwoGlibcArenasOtherwise(@TempDir Path root)
            throws Exception {
        Path missing = root.resolve("lib/missing/libjemalloc.so.2");
        Path present = Files.createDirectories(root.resolve("lib/present")).resolve("libjemalloc.so.2");
        Files.writeString(present, "elf");

        assertThat(Processes.nativeMemoryEnv(Map.of(), List.of(missing, present)))
                .isEqualTo(Map.of("LD_PRELOAD", present.toString()));
        assertThat(Processes.nativeMemoryEnv(Map.of("DISABLE_JEMALLOC", "true"), List.of(present)))
                .isEqualTo(Map.of("MALLOC_ARENA_MAX", "2"));
        assertThat(Processes.nativeMemoryEnv(Map.of(), List.of(missing)))
                .isEqualTo(Map.of("MALLOC_ARENA_MAX", "2"));
    }

    @Test
    void theThreadsNamedRunAtTheLowestPriorityAndNoOther(@TempDir Path root) throws Exception {
        Home home = new Home(root);
        Processes processes = new Processes(home);
        Files.createDirectories(home.pids);
        Files.writeString(home.pidFile("self"), String.valueOf(ProcessHandle.current().pid()));
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        Thread named = new Thread(() -> {
            running.countDown(); // Why: the JVM names the native thread (its comm) when it starts, before run()
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "ckc-lowered-thread");
        named.start();
        running.await();
        try {
            assertThat(processes.lowerPriority("self", "ckc-lowered")).isEqualTo(1);
            assertThat(niceOf("ckc-lowered")).containsExactly(19);
            assertThat(niceOf("main")).as("the process's other threads").doesNotContain(19);
            assertThat(processes.lowerPriority("absent", "ckc-lowered")).as("no such process").isZero();
        } finally {
            done.countDown();
            named.join();
        }
    }

    /** The nice values of this process's threads whose names start with {@code prefix} (field 19 of their stat). */
    private static List<Integer> niceOf(String prefix) throws Exception {
        List<Integer> nice = new java.util.ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                if (Files.readString(task.resolve("comm")).startsWith(prefix)) {
                    String stat = Files.readString(task.resolve("stat"));
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    nice.add(Integer.parseInt(fields[16]));
                }
            }
        }
        return nice;
    }
}
