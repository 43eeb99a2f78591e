package io.ckc.cli;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class SimulatorMainTest {

    /**
     * A shell stands for the {@code ./ckc} command: it starts a simulator that would run for minutes (the hand-off
     * measurement, which needs no stack: its gaps of 0 ms done, those of 20 ms under way) and is killed with
     * {@code kill -9}; the simulator must end too.
     */
    @Test
    void aSimulatorEndsWhenTheCommandThatStartedItIsKilled() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        String simulator = String.join(" ", java, "-Xmx128m", "-cp", "'" + System.getProperty("java.class.path") + "'",
                SimulatorMain.class.getName(), "handoff", "--gaps-ms", "0,20", "--round-trips", "10000");
        Process command = new ProcessBuilder("bash", "-c", simulator + " 2>&1 & echo pid=$!; wait")
                .redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(command.getInputStream(), StandardCharsets.UTF_8));
        ProcessHandle started = ProcessHandle.of(Long.parseLong(out.readLine().substring("pid=".length())))
                .orElseThrow();
        try {
            assertThat(started.parent().map(ProcessHandle::pid)).as("the shell started it").contains(command.pid());
            String line;
            do { // its main has begun: the hand-offs without a gap are measured
                line = out.readLine();
            } while (line != null && !line.startsWith("RESULT handoff gap_ms=0"));
            assertThat(line).as("the simulator's first result").isNotNull();
            assertThat(started.onExit().isDone()).as("running while its command runs").isFalse();

            command.destroyForcibly(); // kill -9: the command's own shutdown hooks never run
            assertThat(command.waitFor(10, TimeUnit.SECONDS)).isTrue();

            started.onExit().get(60, TimeUnit.SECONDS); // would run for 10,000 x 20 ms otherwise
            assertThat(started.isAlive()).isFalse();
        } finally {
            started.destroyForcibly();
        }
    }
}
