package io.ckc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;

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
}
