package io.ckc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class FlinkRuntimeTest {

    @Test
    void theClusterProcessesGetTheJavaOptionsOfTheConfigurationOfRecord() {
        Path configOfRecord = Path.of("..", "runtime", "flink", "conf", "config.yaml");
        assertThat(FlinkRuntime.javaOptions(configOfRecord)).contains("-XX:+AlwaysPreTouch");
    }

    @Test
    void javaOptionsAreReadAsFlinkReadsThem(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("config.yaml");
        Files.writeString(config, "env.java.opts.jobmanager: -Xss1m\n");
        assertThat(FlinkRuntime.javaOptions(config)).as("none for every process").isEmpty();

        Files.writeString(config, "env.java.opts.all: \"-XX:+AlwaysPreTouch  -Dx=1\"\n"
                + "# env.java.opts.all: -Dcommented=out\n");
        assertThat(FlinkRuntime.javaOptions(config)).containsExactly("-XX:+AlwaysPreTouch", "-Dx=1");

        Files.writeString(config, "env.java.opts.all: -Dfirst\nenv.java.opts.all: '-Dlast'\n");
        assertThat(FlinkRuntime.javaOptions(config)).as("a later line wins").containsExactly("-Dlast");
    }
}
