package io.ckc.deploy;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ManifestsTest {

    @Test
    void theCommittedManifestsAreWhatTheCodeGenerates() throws Exception {
        Map<Path, String> files = new Manifests().render(ProjectFiles.ROOT);
        assertThat(files).containsKeys(Path.of("k8s/kafka/topics.yaml"), Path.of("k8s/flink/delivery.yaml"),
                Path.of("k8s/rules/drivers.yaml"));
        assertThat(Manifests.stale(ProjectFiles.ROOT, files)).as("run ./ckc k8s generate").isEmpty();
    }

    @Test
    void aChangedTopicSettingMakesTheManifestStale(@org.junit.jupiter.api.io.TempDir Path copy) throws Exception {
        Map<Path, String> files = new Manifests().render(ProjectFiles.ROOT);
        for (var file : files.entrySet()) {
            Path path = copy.resolve(file.getKey());
            Files.createDirectories(path.getParent());
            Files.writeString(path, file.getValue().replace("replicas: 3", "replicas: 1"));
        }
        assertThat(Manifests.stale(copy, files)).containsExactly(Path.of("k8s/kafka/topics.yaml"));
    }

    @Test
    void topicsHaveThreeReplicasAndTwoInSyncAndJobsTakeTheirParallelismFromTheDeployment() throws Exception {
        String topics = Files.readString(ProjectFiles.ROOT.resolve("k8s/kafka/topics.yaml"));
        assertThat(ProjectFiles.documents(topics)).isNotEmpty().allSatisfy(topic -> {
            assertThat(topic.at("/spec/replicas").asInt()).isEqualTo(3);
            assertThat(topic.at("/spec/config/min.insync.replicas").asText()).isEqualTo("2");
        });
        String delivery = Files.readString(ProjectFiles.ROOT.resolve("k8s/flink/delivery.yaml"));
        var job = ProjectFiles.flinkSpec(ProjectFiles.documents(delivery).get(0)).at("/job");
        assertThat(job.get("upgradeMode").asText()).isEqualTo("savepoint");
        assertThat(job.get("args").toString()).doesNotContain("--parallelism");
    }

    /** The jobs that may run twice for a while are rescaled blue/green by the operator; the others by savepoint. */
    @Test
    void deliveryAndEchoAreBlueGreenDeploymentsAndTheOtherJobsPlainOnes() throws Exception {
        for (io.ckc.jobs.JobCatalog.Launch launch : io.ckc.jobs.JobCatalog.stack(1, 1, 1, "grid-cell")) {
            JsonNode resource = ProjectFiles.documents(Files.readString(
                    ProjectFiles.ROOT.resolve("k8s/flink/" + launch.name() + ".yaml"))).get(0);
            assertThat(resource.path("kind").asText()).as(launch.name())
                    .isEqualTo(launch.kind().blueGreen() ? "FlinkBlueGreenDeployment" : "FlinkDeployment");
        }
        assertThat(io.ckc.jobs.JobCatalog.Kind.DELIVERY.blueGreen()).isTrue();
        assertThat(io.ckc.jobs.JobCatalog.Kind.POA_MANAGER.blueGreen()).isFalse();
    }
}
