package io.ckc.fuzz;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fuzz corpus as regression tests: every target takes its seeds and every input of its committed corpus
 * ({@code fuzz/corpus/<target>/}, what earlier runs found that reached new code) without a finding.
 */
class CorpusTest {

    static final Path CORPUS = Path.of("corpus");

    @ParameterizedTest
    @EnumSource(FuzzTarget.class)
    void everySeedAndCommittedInputRunsWithoutAFinding(FuzzTarget target) throws IOException {
        List<byte[]> inputs = new ArrayList<>(target.seeds());
        Path committed = CORPUS.resolve(target.label());
        if (Files.isDirectory(committed)) {
            try (Stream<Path> files = Files.list(committed)) {
                for (Path file : files.sorted().toList()) {
                    inputs.add(Files.readAllBytes(file));
                }
            }
        }
        assertThat(target.seeds()).isNotEmpty();
        for (byte[] input : inputs) {
            target.run(input);
        }
    }
}
