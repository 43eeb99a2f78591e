package io.ckc.jobs.ops;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class ClusterJobsJarTest {

    @TempDir
    Path dir;

    @Test
    void theCopyIsNamedByContentAndAnotherBuildIsRefused() throws Exception {
        Path built = Files.write(dir.resolve("ckc-jobs.jar"), new byte[] {1, 2, 3});
        Path rebuilt = Files.write(dir.resolve("rebuilt-ckc-jobs.jar"), new byte[] {1, 2, 4});
        String name = ClusterJobsJar.nameOf(built);
        assertThat(name).matches("ckc-jobs-[0-9a-f]{12}\\.jar").isEqualTo(ClusterJobsJar.nameOf(built))
                .isNotEqualTo(ClusterJobsJar.nameOf(rebuilt));

        Optional<String> onCluster = ClusterJobsJar.in(List.of("/opt/flink/lib/flink-dist-2.2.0.jar",
                "/work/.ckc/flink/cluster-lib/" + name, "/opt/flink/lib/log4j-api.jar"));
        assertThat(onCluster).contains(name);
        assertThat(ClusterJobsJar.mismatch(onCluster, built)).isEmpty();
        String rebuiltName = ClusterJobsJar.nameOf(rebuilt);
        assertThat(ClusterJobsJar.mismatch(onCluster, rebuilt)).hasValueSatisfying(reason -> assertThat(reason)
                .contains(name, rebuiltName, "restart the cluster"));
        // A cluster without a copy (the embedded MiniCluster, a cluster of someone else's) takes any jar.
        assertThat(ClusterJobsJar.mismatch(ClusterJobsJar.in(List.of("/opt/flink/lib/flink-dist-2.2.0.jar")), rebuilt))
                .isEmpty();
    }
}
