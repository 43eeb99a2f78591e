package io.ckc.fuzz;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The fuzz runner on Jazzer, each target in a JVM of its own: it reports what the fuzzer executed and found. */
class FuzzCommandTest {

    private static final String CLASSPATH = System.getProperty("java.class.path");

    @Test
    void aPlantedCrashIsReportedAsACrashWithItsInputKept(@TempDir Path work) throws Exception {
        FuzzCommand.Outcome outcome = FuzzCommand.fuzz("planted", PlantedCrashTarget.class.getName(),
                List.of("hello".getBytes()), work.resolve("none"), 30, work, CLASSPATH);

        assertThat(outcome.crashes()).as("see %s", work.resolve("fuzz.log")).isEqualTo(1);
        assertThat(outcome.cases()).isPositive();
        try (var files = Files.list(work.resolve("findings"))) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .anySatisfy(name -> assertThat(name).startsWith("crash-"));
        }
        assertThat(outcome.resultLine()).startsWith("RESULT target=planted cases=").contains(" crashes=1 ");
    }

    @Test
    void aRealTargetRunsItsTimeWithoutAFindingAndCountsItsCases(@TempDir Path work) throws Exception {
        FuzzTarget target = FuzzTarget.FRAME_CODEC;
        FuzzCommand.Outcome outcome = FuzzCommand.fuzz(target.label(), target.className(), target.seeds(),
                CorpusTest.CORPUS.resolve(target.label()), 5, work, CLASSPATH);

        assertThat(outcome.crashes()).as("see %s", work.resolve("fuzz.log")).isZero();
        assertThat(outcome.cases()).isGreaterThan(1_000);
        assertThat(outcome.millis()).isGreaterThanOrEqualTo(5_000);
    }

    @Test
    void theCasesAreLibFuzzersFinalCountOrItsLastProgressLine() {
        assertThat(FuzzCommand.cases(List.of("#2\tINITED cov: 2", "#4096\tpulse  cov: 9", "Done 5000 runs in 5 s",
                "stat::number_of_executed_units: 5003"))).isEqualTo(5003);
        assertThat(FuzzCommand.cases(List.of("#2\tINITED cov: 2", "#27\tNEW    cov: 3", "== Java Exception: x")))
                .isEqualTo(27);
        assertThat(FuzzCommand.cases(List.of("INFO: Seed: 1"))).isZero();
    }
}
