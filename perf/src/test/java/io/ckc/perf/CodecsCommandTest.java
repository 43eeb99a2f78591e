package io.ckc.perf;

import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.Unicast;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code perf codecs}: every codec reads back what it wrote, and each prints its figures beside the JSON's. */
class CodecsCommandTest {

    @Test
    void everyCodecReadsBackEveryFieldItWrote() throws Exception {
        Unicast unicast = new Unicast("m", "app", "node", new byte[] {1, 2}, 5L, 7, true, "d/g", "reply", new byte[] {3});
        AppMessage message = new AppMessage("m", "node", "gw", "echo", new byte[] {4}, new Context(1.5, null, 0.5,
                Map.of("a", "b")), 9, 60_000L, "reply", new byte[] {5});
        AppMessage bare = new AppMessage(null, null, null, null, null, null, 0);
        for (CodecsCommand.Codec codec : CodecsCommand.codecs()) {
            for (Object record : List.of(unicast, message, bare, Unicast.of("m", "a", "n", new byte[0]))) {
                assertThat(codec.read(codec.write(record), record.getClass())).as("%s: %s", codec.name(), record)
                        .isEqualTo(record);
            }
        }
    }

    @Test
    void printsEachCodecForEachRecordBesideJson() {
        CodecsCommand command = new CodecsCommand();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        command.out = new PrintStream(printed, true, StandardCharsets.UTF_8);

        int exit = new CommandLine(command).execute("--rounds", "1", "--round-ms", "20");

        assertThat(exit).isZero();
        List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(8);
        assertThat(lines).allMatch(l -> l.matches("RESULT scenario=codecs codec=\\S+ record=(Unicast|AppMessage) bytes=\\d+ "
                + "write_read_ns=\\d+ allocated_bytes=\\d+ xjson_time=[\\d.]+ xjson_bytes=[\\d.]+"));
        assertThat(lines).filteredOn(l -> l.contains("codec=json ")).allMatch(l -> l.endsWith("xjson_time=1.00 xjson_bytes=1.00"));
        String protobufUnicast = lines.stream().filter(l -> l.contains("codec=protobuf record=Unicast")).findFirst().orElseThrow();
        double bytesRatio = Double.parseDouble(protobufUnicast.replaceAll(".*xjson_bytes=([\\d.]+)", "$1"));
        assertThat(bytesRatio).as("the binary unicast beside its JSON").isLessThan(0.7);
    }
}
