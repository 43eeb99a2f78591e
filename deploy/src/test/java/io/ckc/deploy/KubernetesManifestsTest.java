package io.ckc.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Every Kubernetes manifest of the project, checked offline against the official schemas. */
class KubernetesManifestsTest {

    private static KubernetesSchemas schemas;

    @BeforeAll
    static void loadSchemas() throws IOException {
        schemas = new KubernetesSchemas(ProjectFiles.files("k8s/crds", ".yaml", ".yml"));
    }

    /** The resource files: everything under k8s/ and monitoring/kubernetes/ but the CRDs and kustomizations. */
    /** kustomize's own files, not resources. */
    static final List<String> KUSTOMIZE_FILES = List.of("kustomization.yaml", "kustomizeconfig.yaml");

    private static List<Path> manifests() throws IOException {
        List<Path> files = new ArrayList<>(ProjectFiles.files("k8s", ".yaml"));
        files.addAll(ProjectFiles.files("monitoring/kubernetes", ".yaml"));
        return files.stream()
                .filter(p -> !p.startsWith(ProjectFiles.ROOT.resolve("k8s/crds")))
                .filter(p -> !KUSTOMIZE_FILES.contains(p.getFileName().toString()))
                .toList();
    }

    @Test
    void everyManifestMatchesItsSchema() throws IOException {
        List<String> problems = new ArrayList<>();
        int resources = 0;
        for (Path file : manifests()) {
            for (JsonNode resource : ProjectFiles.documents(Files.readString(file))) {
                resources++;
                schemas.problems(resource).forEach(p -> problems.add(ProjectFiles.ROOT.relativize(file) + ": " + p));
            }
        }
        assertThat(problems).isEmpty();
        assertThat(resources).isGreaterThan(30);
    }

    @Test
    void everyResourceFileIsInItsKustomization() throws IOException {
        for (String folder : List.of("k8s", "k8s/rules", "k8s/state/base", "monitoring")) {
            String kustomization = Files.readString(ProjectFiles.ROOT.resolve(folder).resolve("kustomization.yaml"));
            try (Stream<Path> files = Files.walk(ProjectFiles.ROOT.resolve(folder), folder.equals("k8s") ? 2 : 1)) {
                files.filter(p -> p.toString().endsWith(".yaml") && !KUSTOMIZE_FILES.contains(p.getFileName().toString()))
                        .filter(p -> !p.startsWith(ProjectFiles.ROOT.resolve("k8s/crds"))
                                && (folder.equals("k8s/rules") || !p.startsWith(ProjectFiles.ROOT.resolve("k8s/rules")))
                                && (folder.equals("k8s/state/base") || !p.startsWith(ProjectFiles.ROOT.resolve("k8s/state"))))
                        .map(p -> ProjectFiles.ROOT.resolve(folder).relativize(p).toString())
                        .forEach(p -> assertThat(kustomization).as(folder + "/kustomization.yaml lists " + p)
                                .contains("- " + p));
            }
        }
    }

    @Test
    void theValidatorRefusesBrokenResources() throws IOException {
        JsonNode statefulSet = ProjectFiles.documents(Files.readString(ProjectFiles.ROOT.resolve("k8s/gateway/gateway.yaml"))).get(0);
        assertThat(schemas.problems(statefulSet)).isEmpty();
        ((com.fasterxml.jackson.databind.node.ObjectNode) statefulSet.get("spec")).put("replica", 3);
        assertThat(schemas.problems(statefulSet)).anySatisfy(p -> assertThat(p).contains("replica"));

        JsonNode delivery = ProjectFiles.documents(Files.readString(ProjectFiles.ROOT.resolve("k8s/flink/delivery.yaml"))).get(0);
        ((com.fasterxml.jackson.databind.node.ObjectNode) ProjectFiles.flinkSpec(delivery).at("/job"))
                .put("upgradeMode", "sometimes");
        assertThat(schemas.problems(delivery)).anySatisfy(p -> assertThat(p).contains("upgradeMode"));

        JsonNode topic = ProjectFiles.documents(Files.readString(ProjectFiles.ROOT.resolve("k8s/kafka/topics.yaml"))).get(0);
        ((com.fasterxml.jackson.databind.node.ObjectNode) topic.get("spec")).put("partitions", "six");
        ((com.fasterxml.jackson.databind.node.ObjectNode) topic.get("spec")).put("replication", 3);
        assertThat(schemas.problems(topic)).anySatisfy(p -> assertThat(p).contains("partitions"))
                .anySatisfy(p -> assertThat(p).contains("replication"));

        JsonNode podMonitor = ProjectFiles.documents(Files.readString(ProjectFiles.ROOT.resolve("monitoring/kubernetes/podmonitors.yaml"))).get(0);
        ((com.fasterxml.jackson.databind.node.ObjectNode) podMonitor.get("spec")).putArray("endpoints");
        assertThat(schemas.problems(podMonitor)).anySatisfy(p -> assertThat(p).contains("endpoints"));
    }

    /** {@code kubectl kustomize}, where kubectl is installed: the deployment as it is applied, with generated ConfigMaps. */
    @Test
    void theKustomizedDeploymentMatchesItsSchemas() throws Exception {
        Assumptions.assumeTrue(ProjectFiles.onPath("kubectl"), "kubectl is not installed: the kustomize rendering is not checked here");
        for (String folder : List.of("k8s", "k8s/rules", "k8s/state/base", "k8s/state/eks", "k8s/state/gke",
                "k8s/state/aks")) {
            List<JsonNode> resources = ProjectFiles.kustomize(ProjectFiles.ROOT.resolve(folder));
            List<String> problems = new ArrayList<>();
            for (JsonNode resource : resources) {
                problems.addAll(schemas.problems(resource));
                assertThat(resource.at("/metadata/namespace").asText(resource.path("kind").asText().equals("Namespace") ? "ckc" : ""))
                        .as("namespace of " + resource.at("/metadata/name").asText()).isEqualTo("ckc");
            }
            assertThat(problems).isEmpty();
            if (folder.equals("k8s")) {
                assertThat(resources).extracting(r -> r.get("kind").asText())
                        .contains("Kafka", "KafkaNodePool", "KafkaTopic", "FlinkDeployment", "FlinkBlueGreenDeployment",
                                "StatefulSet", "PodMonitor", "ConfigMap");
                JsonNode dashboards = resources.stream().filter(r -> r.get("kind").asText().equals("ConfigMap"))
                        .filter(r -> !r.at("/metadata/name").asText().equals("ckc-kafka-client")).findFirst().orElseThrow();
                assertThat(dashboards.get("data").size()).isEqualTo(Dashboards.ALL.size());
            }
        }
    }
}
