package io.ckc.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docker/ and k8s/ as an operator would meet them before a first real install, checked offline: what would fail, lose
 * data or let someone in. Each check names the defect it catches (issue 81's table).
 */
class ProductionHardeningTest {

    private static List<JsonNode> resources(Path file) throws IOException {
        return ProjectFiles.documents(Files.readString(file));
    }

    /** The resources {@code kubectl apply -k folder} applies, read from the files its kustomization lists (recursively). */
    static List<JsonNode> kustomization(Path folder) throws IOException {
        JsonNode kustomization = ProjectFiles.YAML.readTree(folder.resolve("kustomization.yaml").toFile());
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode entry : kustomization.path("resources")) {
            Path path = folder.resolve(entry.asText()).normalize();
            if (Files.isDirectory(path)) {
                all.addAll(kustomization(path));
            } else {
                all.addAll(resources(path));
            }
        }
        return all;
    }

    /** Defect 1: the image was set only in k8s/; kubectl apply -k k8s/rules still pulled ckc-jobs:0.1.0. */
    @Test
    void everyKustomizationThatNamesACkcImageIsSetByTheInstallsImageStep() throws IOException {
        String steps = String.join("\n", KubernetesInstallTest.installSteps());
        List<String> problems = new ArrayList<>();
        for (Path file : ProjectFiles.files("k8s", "kustomization.yaml")) {
            JsonNode kustomization = ProjectFiles.YAML.readTree(file.toFile());
            String folder = ProjectFiles.ROOT.relativize(file.getParent()).toString();
            for (JsonNode image : kustomization.path("images")) {
                String name = image.path("name").asText();
                Matcher step = Pattern.compile("cd " + Pattern.quote(folder) + " && kustomize edit set image [^)]*"
                        + Pattern.quote(name) + "=").matcher(steps);
                if (name.startsWith("ckc-") && !step.find()) {
                    problems.add(folder + " names " + name + " but no install step sets it there");
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    /** Defect 2: one LoadBalancer Service with UDP and TCP ports, which many clouds do not build. */
    @Test
    void noServiceMixesProtocolsUnlessItNamesALoadBalancerClass() throws IOException {
        List<String> problems = new ArrayList<>();
        for (JsonNode resource : kustomization(ProjectFiles.ROOT.resolve("k8s"))) {
            if (!resource.path("kind").asText().equals("Service")) {
                continue;
            }
            Set<String> protocols = new TreeSet<>();
            resource.at("/spec/ports").forEach(p -> protocols.add(p.path("protocol").asText("TCP")));
            if (protocols.size() > 1 && !resource.at("/spec/loadBalancerClass").isTextual()) {
                problems.add(resource.at("/metadata/name").asText() + " mixes " + protocols);
            }
        }
        assertThat(problems).isEmpty();
    }

    /** Defect 5: the internet-facing gateway ran as root with its service-account token mounted. */
    @Test
    void everyContainerRunsAsNonRootWithoutPrivilegeEscalationOrCapabilities() throws IOException {
        List<String> problems = new ArrayList<>();
        for (JsonNode resource : kustomization(ProjectFiles.ROOT.resolve("k8s"))) {
            String name = resource.path("kind").asText() + " " + resource.at("/metadata/name").asText();
            JsonNode pod = switch (resource.path("kind").asText()) {
                case "StatefulSet", "Deployment" -> resource.at("/spec/template/spec");
                case "FlinkDeployment", "FlinkBlueGreenDeployment" -> ProjectFiles.flinkSpec(resource).at("/podTemplate/spec");
                default -> null;
            };
            if (pod == null) {
                continue;
            }
            if (!pod.at("/securityContext/runAsNonRoot").asBoolean()) {
                problems.add(name + ": not runAsNonRoot");
            }
            if (resource.path("kind").asText().equals("StatefulSet") && pod.path("automountServiceAccountToken").asBoolean(true)) {
                problems.add(name + ": mounts a service-account token it does not use");
            }
            for (JsonNode container : pod.path("containers")) {
                JsonNode security = container.path("securityContext");
                if (security.path("allowPrivilegeEscalation").asBoolean(true)) {
                    problems.add(name + "/" + container.path("name").asText() + ": may escalate privileges");
                }
                if (!security.at("/capabilities/drop").toString().contains("ALL")) {
                    problems.add(name + "/" + container.path("name").asText() + ": keeps its capabilities");
                }
            }
        }
        ProjectFiles.compose().get("services").fields().forEachRemaining(service -> {
            String user = service.getValue().path("user").asText("");
            if (service.getValue().path("image").asText().startsWith("ckc-gateway") && !service.getValue().has("entrypoint")
                    && (user.equals("0") || user.equals("root"))) {
                problems.add("compose: " + service.getKey() + " runs as root");
            }
        });
        String dockerfile = Files.readString(ProjectFiles.ROOT.resolve("docker/Dockerfile"));
        String gatewayStage = dockerfile.substring(dockerfile.indexOf("AS gateway"));
        Matcher user = Pattern.compile("(?m)^USER (\\S+)").matcher(gatewayStage);
        if (!user.find() || user.group(1).equals("root") || user.group(1).equals("0")) {
            problems.add("docker/Dockerfile: the gateway image runs as root");
        }
        assertThat(problems).isEmpty();
    }

    /** Defect 6: kubectl delete -k k8s deleted namespace ckc, Kafka's claims and every savepoint. */
    @Test
    void whatApplyKInstallsHoldsNoNamespaceAndNoClaimOfState() throws IOException {
        for (String folder : List.of("k8s", "k8s/rules")) {
            assertThat(kustomization(ProjectFiles.ROOT.resolve(folder)))
                    .extracting(r -> r.path("kind").asText() + " " + r.at("/metadata/name").asText())
                    .as("kubectl delete -k %s deletes none of these", folder)
                    .noneMatch(r -> r.startsWith("Namespace ") || r.startsWith("PersistentVolumeClaim "));
        }
        for (JsonNode resource : kustomization(ProjectFiles.ROOT.resolve("k8s"))) {
            if (resource.path("kind").asText().equals("KafkaNodePool")) {
                resource.at("/spec/storage/volumes").forEach(v -> assertThat(v.path("deleteClaim").asBoolean(true))
                        .as("Kafka's claims outlive its resource").isFalse());
            }
        }
    }

    /** Defect 14: a ReadWriteMany claim without a class, Pending on every default class: Flink never started. */
    @Test
    void theInstallClaimsCheckpointStorageOfAClassThatServesReadWriteMany() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ProjectFiles.onPath("kubectl"),
                "kubectl is not installed: the state overlays are not rendered here");
        Matcher step = Pattern.compile("kubectl apply -k (k8s/state/[a-z0-9-]+)")
                .matcher(String.join("\n", KubernetesInstallTest.installSteps()));
        assertThat(step.find()).as("the install applies a state overlay").isTrue();
        List<String> overlays = new ArrayList<>(List.of(step.group(1)));
        try (var dirs = Files.list(ProjectFiles.ROOT.resolve("k8s/state"))) {
            dirs.filter(d -> !d.getFileName().toString().equals("base"))
                    .forEach(d -> overlays.add(ProjectFiles.ROOT.relativize(d).toString()));
        }
        for (String overlay : overlays) {
            JsonNode claim = ProjectFiles.kustomize(ProjectFiles.ROOT.resolve(overlay)).stream()
                    .filter(r -> r.path("kind").asText().equals("PersistentVolumeClaim")).findFirst().orElseThrow();
            assertThat(claim.at("/spec/storageClassName").asText()).as("%s names a class", overlay).isNotBlank();
            assertThat(claim.at("/spec/accessModes").toString()).contains("ReadWriteMany");
        }
    }

    /**
     * Defect 3: fsGroup is ignored on ReadWriteMany CSI volumes, so a root-owned share was unwritable for uid 9999 and
     * every checkpoint failed while the jobs ran on.
     */
    @Test
    void everyFlinkPodChecksItCanWriteItsVolumeAndTheOverlaysMakeTheShareTheFlinkUsers() throws Exception {
        List<String> problems = new ArrayList<>();
        for (JsonNode resource : kustomization(ProjectFiles.ROOT.resolve("k8s"))) {
            if (!ProjectFiles.flinkSpec(resource).isMissingNode()) {
                JsonNode init = ProjectFiles.flinkSpec(resource).at("/podTemplate/spec/initContainers/0");
                if (!init.path("command").toString().contains("/flink-data")
                        || !init.path("volumeMounts").toString().contains("/flink-data")) {
                    problems.add(resource.at("/metadata/name").asText() + ": nothing checks that /flink-data is writable");
                }
            }
        }
        try (var dirs = Files.list(ProjectFiles.ROOT.resolve("k8s/state"))) {
            for (Path overlay : dirs.filter(d -> !d.getFileName().toString().equals("base")).toList()) {
                String files = Files.readString(overlay.resolve("kustomization.yaml"));
                Path owner = overlay.resolve("flink-data-owner.yaml");
                boolean chowns = Files.exists(owner) && Files.readString(owner).contains("chown 9999:9999 /flink-data")
                        && files.contains("flink-data-owner.yaml");
                if (!chowns && !files.contains("0777")) {
                    problems.add(overlay.getFileName() + ": nothing makes the share writable for uid 9999");
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    /** Defect 8: Flink's REST (jar upload and run), Grafana and Prometheus on every interface; default passwords. */
    @Test
    void composePublishesOnlyTheNodesPortsBeyondLoopbackAndHasNoDefaultPassword() throws IOException {
        JsonNode compose = ProjectFiles.compose();
        List<String> problems = new ArrayList<>();
        compose.get("services").fields().forEachRemaining(service -> {
            boolean gateway = service.getValue().path("image").asText().startsWith("ckc-gateway")
                    && !service.getValue().has("entrypoint");
            for (JsonNode port : service.getValue().path("ports")) {
                if (!gateway && !port.asText().startsWith("127.0.0.1:")) {
                    problems.add(service.getKey() + " publishes " + port.asText() + " on every interface");
                }
            }
        });
        String text = Files.readString(ProjectFiles.ROOT.resolve("docker/compose.yaml"));
        Matcher defaulted = Pattern.compile("\\$\\{([A-Z_]*PASSWORD[A-Z_]*):-").matcher(text);
        while (defaulted.find()) {
            problems.add(defaulted.group(1) + " has a default");
        }
        JsonNode grafana = compose.at("/services/grafana/environment");
        if (!grafana.path("GF_SECURITY_ADMIN_PASSWORD").asText().matches("\\$\\{[A-Z_]+:\\?.*}")) {
            problems.add("Grafana keeps admin/admin unless told otherwise");
        }
        assertThat(problems).isEmpty();
    }

    /** Defect 9: the README's credential files at the repo root were neither ignored by git nor kept out of images. */
    @Test
    void everySecretFileTheReadmesCreateIsIgnoredByGitAndKeptOutOfImages() throws IOException {
        Set<String> secrets = new TreeSet<>();
        for (String readme : List.of("k8s/README.md", "README.md", "docker/compose.yaml")) {
            Matcher file = Pattern.compile("(?:--store |credentials tls |--from-file=)([A-Za-z0-9_/-][A-Za-z0-9_./-]*\\.(?:json|p12))")
                    .matcher(Files.readString(ProjectFiles.ROOT.resolve(readme)));
            while (file.find()) {
                secrets.add(file.group(1));
            }
        }
        assertThat(secrets).contains("credentials.json", "gateway.p12");
        List<String> gitignore = List.of(Files.readString(ProjectFiles.ROOT.resolve(".gitignore")).split("\n"));
        List<String> dockerignore = List.of(Files.readString(ProjectFiles.ROOT.resolve(".dockerignore")).split("\n"));
        List<String> problems = new ArrayList<>();
        for (String secret : secrets) {
            String name = Path.of(secret).getFileName().toString();
            if (!secret.startsWith("docker/secrets/") && !gitignore.contains(name) && !gitignore.contains("/" + secret)) {
                problems.add(".gitignore misses " + secret);
            }
            if (!dockerignore.contains("**/" + name) && !dockerignore.contains(secret)) {
                problems.add(".dockerignore misses " + secret);
            }
        }
        if (!dockerignore.contains("docker/secrets")) {
            problems.add(".dockerignore lets docker/secrets into the build");
        }
        assertThat(problems).isEmpty();
    }

    /** Defect 10: helm install returned before the operator's webhook served, and apply -k was refused. */
    @Test
    void everyOperatorIsReadyBeforeTheResourcesItServesAreApplied() throws IOException {
        List<String> steps = KubernetesInstallTest.installSteps();
        assertThat(steps.stream().filter(s -> s.startsWith("helm install")))
                .isNotEmpty().allSatisfy(s -> assertThat(s).contains("--wait"));
    }

    /**
     * Defect 7: no Flink high availability in compose, and a submit that starts every job empty: after a JobManager
     * restart or a reboot, the MTD buffers, in-flight deliveries and groups were gone.
     */
    @Test
    void composesFlinkRecoversItsJobsAndASubmitResumesThem() throws IOException {
        JsonNode compose = ProjectFiles.compose();
        Set<String> volumes = new TreeSet<>();
        compose.at("/services/jobmanager/volumes").forEach(v -> volumes.add(v.asText()));
        for (String service : List.of("jobmanager", "taskmanager")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> flink = ProjectFiles.YAML.readValue(
                    compose.at("/services/" + service + "/environment/FLINK_PROPERTIES").asText(), Map.class);
            assertThat(String.valueOf(flink.get("high-availability.type"))).as(service + "'s high availability")
                    .isIn("zookeeper", "kubernetes");
            assertThat(String.valueOf(flink.get("high-availability.storageDir"))).as("HA metadata on the volume")
                    .startsWith("file:///flink-data/");
        }
        assertThat(volumes).contains("flink-data:/flink-data");
        Set<String> submitVolumes = new TreeSet<>();
        compose.at("/services/submit/volumes").forEach(v -> submitVolumes.add(v.asText()));
        assertThat(submitVolumes).as("submit sees the checkpoints it resumes from").contains("flink-data:/flink-data");
        assertThat(compose.at("/services/submit/command").toString()).contains(" submit ").doesNotContain("--fresh");
    }

    /** Defect 13: MQTT over TLS on 1883, where devices' clients go to 8883 for TLS. */
    @Test
    void mqttOverTlsIsOffered8883() throws IOException {
        List<String> problems = new ArrayList<>();
        for (JsonNode resource : kustomization(ProjectFiles.ROOT.resolve("k8s"))) {
            if (resource.path("kind").asText().equals("Service")) {
                resource.at("/spec/ports").forEach(p -> {
                    if (p.path("name").asText().equals("mqtt") && p.path("port").asInt() != 8883) {
                        problems.add(resource.at("/metadata/name").asText() + " offers MQTT over TLS on " + p.path("port"));
                    }
                });
            }
        }
        ProjectFiles.compose().get("services").fields().forEachRemaining(service -> {
            String mqtt = service.getValue().at("/environment/CKC_MQTT_PORT").asText();
            if (!mqtt.isEmpty() && !mqtt.startsWith("888")) {
                problems.add(service.getKey() + " offers MQTT over TLS on " + mqtt);
            }
        });
        assertThat(problems).isEmpty();
    }

    /** Defect 12: heap 75% of the limit and direct memory as large again; no liveness probe, readiness on /metrics. */
    @Test
    void theGatewaysMemoryFitsItsLimitAndAHungGatewayIsRestarted() throws IOException {
        JsonNode container = resources(ProjectFiles.ROOT.resolve("k8s/gateway/gateway.yaml")).get(0)
                .at("/spec/template/spec/containers/0");
        assertThat(container.at("/livenessProbe/httpGet/path").asText()).as("liveness: the event loops answer")
                .isEqualTo("/health/live");
        assertThat(container.at("/readinessProbe/httpGet/path").asText()).as("readiness: and Kafka is connected")
                .isEqualTo("/health/ready");
        String options = "";
        for (JsonNode variable : container.path("env")) {
            if (variable.path("name").asText().equals("JAVA_TOOL_OPTIONS")) {
                options = variable.path("value").asText();
            }
        }
        long limit = bytes(container.at("/resources/limits/memory").asText());
        Matcher heap = Pattern.compile("-XX:MaxRAMPercentage=([0-9.]+)").matcher(options);
        Matcher direct = Pattern.compile("-XX:MaxDirectMemorySize=([0-9]+[kmgKMG]?)").matcher(options);
        assertThat(heap.find()).as("a heap share in JAVA_TOOL_OPTIONS").isTrue();
        assertThat(direct.find()).as("a direct memory bound in JAVA_TOOL_OPTIONS").isTrue();
        long used = (long) (limit * Double.parseDouble(heap.group(1)) / 100) + bytes(direct.group(1));
        assertThat(used).as("heap and direct memory within %d bytes, room left for the JVM's own", limit)
                .isLessThan(limit * 85 / 100);
    }

    /** Defect 11: the e2e cluster requested 12 CPU and 18 GiB on one kind node. */
    @Test
    void theKindClusterFitsAFourCpuSixteenGibRunner() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ProjectFiles.onPath("kubectl"),
                "kubectl is not installed: the kind overlay is not rendered here");
        double cpu = 0;
        long memory = 0;
        for (JsonNode resource : ProjectFiles.kustomize(ProjectFiles.ROOT.resolve("e2e/kind"))) {
            switch (resource.path("kind").asText()) {
                case "StatefulSet" -> {
                    int replicas = resource.at("/spec/replicas").asInt(1);
                    for (JsonNode c : resource.at("/spec/template/spec/containers")) {
                        cpu += replicas * cores(c.at("/resources/requests/cpu").asText("0"));
                        memory += replicas * bytes(c.at("/resources/requests/memory").asText("0"));
                    }
                }
                case "KafkaNodePool" -> {
                    int replicas = resource.at("/spec/replicas").asInt();
                    cpu += replicas * cores(resource.at("/spec/resources/requests/cpu").asText("0"));
                    memory += replicas * bytes(resource.at("/spec/resources/requests/memory").asText("0"));
                }
                case "FlinkDeployment", "FlinkBlueGreenDeployment" -> {
                    // a blue/green one runs two deployments only while it rescales: its steady request is one's
                    for (String role : List.of("jobManager", "taskManager")) {
                        cpu += ProjectFiles.flinkSpec(resource).at("/" + role + "/resource/cpu").asDouble();
                        memory += bytes(ProjectFiles.flinkSpec(resource).at("/" + role + "/resource/memory").asText());
                    }
                }
                default -> {
                }
            }
        }
        assertThat(cpu).as("CPU requested").isLessThanOrEqualTo(3.5);
        assertThat(memory).as("memory requested").isLessThanOrEqualTo(12L << 30);
    }

    static double cores(String quantity) {
        return quantity.endsWith("m") ? Double.parseDouble(quantity.substring(0, quantity.length() - 1)) / 1000
                : Double.parseDouble(quantity);
    }

    static long bytes(String quantity) {
        Map<String, Long> units = Map.of("Ki", 1L << 10, "Mi", 1L << 20, "Gi", 1L << 30, "k", 1000L, "m", 1L << 20,
                "M", 1L << 20, "g", 1L << 30, "G", 1L << 30, "K", 1L << 10);
        Matcher m = Pattern.compile("([0-9.]+)([A-Za-z]*)").matcher(quantity.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("a memory quantity: " + quantity);
        }
        return (long) (Double.parseDouble(m.group(1)) * units.getOrDefault(m.group(2), 1L));
    }
}
