package io.ckc.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.FallbackKey;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kubernetes install as a person would run it, checked without a cluster: the README's steps in an
 * order that works and at the versions the files target, an image override that reaches every image,
 * PodMonitors that the installed Prometheus selects, Flink pods that can write their volume, and Flink
 * settings under their current names. Each check names the defect it catches.
 */
class KubernetesInstallTest {

    /** The uid the Flink image runs as (apache/flink-docker: useradd --uid=9999 flink). */
    static final long FLINK_UID = 9999;
    private static final Path K8S = ProjectFiles.ROOT.resolve("k8s");

    /** The shell lines of the README's Install section, comments left out. */
    static List<String> installSteps() throws IOException {
        String readme = Files.readString(K8S.resolve("README.md"));
        int install = readme.indexOf("## Install");
        String block = readme.substring(readme.indexOf("```", install) + 3, readme.indexOf("```", readme.indexOf("```", install) + 3));
        return Stream.of(block.split("\n")).map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    }

    private static void collectImages(JsonNode node, String where, Map<String, String> images) {
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                if (e.getKey().equals("image") && e.getValue().isTextual()) {
                    images.put(where + "/image", e.getValue().asText());
                } else {
                    collectImages(e.getValue(), where + "/" + e.getKey(), images);
                }
            });
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                collectImages(node.get(i), where + "/" + i, images);
            }
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target);
                }
            }
        }
    }

    /** Defect: kustomize's images transformer left every FlinkDeployment's spec.image on the old name. */
    @Test
    void anImageOverrideInTheKustomizationReachesEveryImageOfCkc(@TempDir Path copy) throws Exception {
        Assumptions.assumeTrue(ProjectFiles.onPath("kubectl"), "kubectl is not installed: kustomize is not run here");
        copyTree(K8S, copy.resolve("k8s"));
        copyTree(ProjectFiles.ROOT.resolve("monitoring"), copy.resolve("monitoring"));
        List<String> problems = new ArrayList<>();
        for (String folder : List.of("k8s", "k8s/rules")) {
            Path kustomization = copy.resolve(folder).resolve("kustomization.yaml");
            ObjectNode parsed = (ObjectNode) ProjectFiles.YAML.readTree(kustomization.toFile());
            ArrayNode images = parsed.putArray("images"); // as kustomize edit set image writes it
            for (String name : List.of("ckc-jobs", "ckc-gateway")) {
                images.addObject().put("name", name).put("newName", "registry.example/" + name).put("newTag", "9.9.9");
            }
            ProjectFiles.YAML.writeValue(kustomization.toFile(), parsed);
            for (JsonNode resource : ProjectFiles.kustomize(copy.resolve(folder))) {
                Map<String, String> found = new HashMap<>();
                collectImages(resource, resource.path("kind").asText() + " " + resource.at("/metadata/name").asText(), found);
                found.forEach((where, image) -> {
                    if (image.contains("ckc-") && !image.startsWith("registry.example/") || image.endsWith(":0.1.0")) {
                        problems.add(folder + ": " + where + " is still " + image);
                    }
                });
            }
        }
        assertThat(problems).isEmpty();
    }

    /** Defect: the Flink operator's chart was installed into the ckc namespace before the namespace existed. */
    @Test
    void theInstallStepsCreateEachNamespaceBeforeTheyUseIt() throws IOException {
        Set<String> created = new LinkedHashSet<>();
        List<String> problems = new ArrayList<>();
        Pattern uses = Pattern.compile("(?:-n |--namespace[ =]|namespace=|watchNamespaces=\\{)([a-z0-9-]+)");
        for (String step : installSteps()) {
            Matcher create = Pattern.compile("kubectl create namespace ([a-z0-9-]+)").matcher(step);
            if (create.find()) {
                created.add(create.group(1));
                continue;
            }
            NAMESPACES_OF_MANIFESTS.forEach((manifest, namespace) -> {
                if (step.startsWith("kubectl create -f") && step.endsWith(manifest)) {
                    created.add(namespace);
                }
            });
            Matcher used = uses.matcher(step);
            while (used.find()) {
                if (!created.contains(used.group(1)) && !step.contains("--create-namespace")) {
                    problems.add("'" + step + "' uses namespace " + used.group(1) + " before it is created");
                }
                if (step.contains("--create-namespace")) {
                    created.add(used.group(1));
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(created).contains("ckc");
    }

    /** Upstream manifests that create their own namespace. */
    static final Map<String, String> NAMESPACES_OF_MANIFESTS = Map.of("/cert-manager.yaml", "cert-manager");

    /** Defect: Strimzi was installed from "latest", not the release the files are validated against. */
    @Test
    void everyOperatorIsInstalledAtTheVersionItsVendoredCrdsComeFrom() throws IOException {
        String steps = String.join("\n", installSteps());
        assertThat(steps).doesNotContainIgnoringCase("latest");
        try (Stream<Path> vendored = Files.list(K8S.resolve("crds"))) {
            for (Path dir : vendored.filter(Files::isDirectory).toList()) {
                Matcher nameAndVersion = Pattern.compile("(.+)-(v?[0-9.]+)").matcher(dir.getFileName().toString());
                assertThat(nameAndVersion.matches()).isTrue();
                String operator = nameAndVersion.group(1);
                String version = nameAndVersion.group(2);
                List<String> installs = installSteps().stream()
                        .filter(s -> s.contains(operator) || operator.equals("prometheus-operator") && s.contains("kube-prometheus-stack"))
                        .filter(s -> s.startsWith("helm install") || s.startsWith("kubectl create") || s.startsWith("kubectl apply"))
                        .toList();
                assertThat(installs).as("an install step of %s", operator).isNotEmpty();
                for (String install : installs) {
                    String expected = operator.equals("prometheus-operator")
                            ? KUBE_PROMETHEUS_STACK_WITH_OPERATOR.get(version) : version;
                    assertThat(install).as("%s installs %s %s", install, operator, version).contains(expected);
                }
            }
        }
    }

    /** kube-prometheus-stack releases by the Prometheus Operator they ship (prometheus-community/helm-charts#7152). */
    static final Map<String, String> KUBE_PROMETHEUS_STACK_WITH_OPERATOR = Map.of("v0.93.0", "--version 88.0.0");

    /** Defect: kube-prometheus-stack selects only PodMonitors labelled with its release: nothing was scraped. */
    @Test
    void thePodMonitorsCarryTheReleaseLabelOfThePrometheusTheReadmeInstalls() throws IOException {
        Matcher release = Pattern.compile("helm install (\\S+) \\S*kube-prometheus-stack")
                .matcher(String.join("\n", installSteps()));
        assertThat(release.find()).as("the README installs kube-prometheus-stack").isTrue();
        String steps = String.join("\n", installSteps());
        assertThat(steps).as("Grafana's sidecar looks for dashboards in the ckc namespace too")
                .contains("grafana.sidecar.dashboards.searchNamespace=ALL");
        for (JsonNode monitor : ProjectFiles.documents(Files.readString(
                ProjectFiles.ROOT.resolve("monitoring/kubernetes/podmonitors.yaml")))) {
            assertThat(monitor.at("/metadata/labels/release").asText()).as(monitor.at("/metadata/name").asText())
                    .isEqualTo(release.group(1));
        }
    }

    /** Defect: no fsGroup, so the Flink user (9999) could not write checkpoints to its volume. */
    @Test
    void everyFlinkPodThatMountsAVolumeCanWriteIt() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path file : ProjectFiles.files("k8s", ".yaml")) {
            for (JsonNode resource : ProjectFiles.documents(Files.readString(file))) {
                if (ProjectFiles.flinkSpec(resource).isMissingNode()) {
                    continue;
                }
                JsonNode pod = ProjectFiles.flinkSpec(resource).at("/podTemplate/spec");
                if (pod.path("volumes").size() > 0 && pod.at("/securityContext/fsGroup").asLong() != FLINK_UID) {
                    problems.add(ProjectFiles.ROOT.relativize(file) + ": volumes without securityContext.fsGroup "
                            + FLINK_UID);
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    /** Defect: a claim no default storage class can bind leaves every Flink pod Pending on kind. */
    @Test
    void theKindOverlayClaimsStorageThatASingleNodeClusterBinds() throws Exception {
        Assumptions.assumeTrue(ProjectFiles.onPath("kubectl"), "kubectl is not installed: kustomize is not run here");
        List<JsonNode> resources = ProjectFiles.kustomize(ProjectFiles.ROOT.resolve("e2e/kind"));
        JsonNode claim = resources.stream().filter(r -> r.path("kind").asText().equals("PersistentVolumeClaim"))
                .findFirst().orElseThrow();
        assertThat(claim.at("/spec/accessModes/0").asText()).isEqualTo("ReadWriteOnce");
        String storage = Files.readString(K8S.resolve("state/base/storage.yaml"));
        assertThat(storage).as("the base claim says which storage classes can serve it")
                .contains("ReadWriteMany").contains("storageClassName");
    }

    /** Defect: state.backend.incremental, a deprecated alias of execution.checkpointing.incremental. */
    @Test
    void noFlinkSettingUsesADeprecatedKey() throws Exception {
        Map<String, String> deprecated = deprecatedFlinkKeys();
        assertThat(deprecated).containsEntry("state.backend.incremental", "execution.checkpointing.incremental");
        Map<String, Set<String>> keysByFile = new HashMap<>();
        Map<String, Object> record = new Yaml().load(Files.readString(ProjectFiles.ROOT.resolve("runtime/flink/conf/config.yaml")));
        keysByFile.put("runtime/flink/conf/config.yaml", record.keySet());
        for (Path file : ProjectFiles.files("k8s", ".yaml")) {
            for (JsonNode resource : ProjectFiles.documents(Files.readString(file))) {
                Set<String> keys = new LinkedHashSet<>();
                ProjectFiles.flinkSpec(resource).path("flinkConfiguration").fieldNames().forEachRemaining(keys::add);
                keysByFile.computeIfAbsent(ProjectFiles.ROOT.relativize(file).toString(), k -> new LinkedHashSet<>()).addAll(keys);
            }
        }
        JsonNode compose = ProjectFiles.compose();
        compose.get("services").fields().forEachRemaining(service -> {
            String properties = service.getValue().at("/environment/FLINK_PROPERTIES").asText("");
            if (!properties.isEmpty()) {
                Map<String, Object> parsed = new Yaml().load(properties);
                keysByFile.put("docker/compose.yaml " + service.getKey(), parsed.keySet());
            }
        });
        List<String> problems = new ArrayList<>();
        keysByFile.forEach((file, keys) -> keys.stream().filter(deprecated::containsKey)
                .forEach(key -> problems.add(file + ": " + key + " is deprecated, use " + deprecated.get(key))));
        assertThat(problems).isEmpty();
    }

    /** Every deprecated key of Flink's options (flink-core's *Options classes), with the key that replaced it. */
    static Map<String, String> deprecatedFlinkKeys() throws IOException, URISyntaxException, ClassNotFoundException {
        Map<String, String> deprecated = new HashMap<>();
        Path core = Path.of(ConfigOption.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (JarFile jar = new JarFile(core.toFile())) {
            for (String name : jar.stream().map(e -> e.getName())
                    .filter(n -> n.matches("org/apache/flink/configuration/[A-Za-z]+Options\\.class")).toList()) {
                Class<?> options = Class.forName(name.replace('/', '.').replace(".class", ""));
                for (Field field : options.getFields()) {
                    if (!Modifier.isStatic(field.getModifiers()) || !ConfigOption.class.isAssignableFrom(field.getType())) {
                        continue;
                    }
                    try {
                        ConfigOption<?> option = (ConfigOption<?>) field.get(null);
                        for (FallbackKey key : option.fallbackKeys()) {
                            if (key.isDeprecated()) {
                                deprecated.put(key.getKey(), option.key());
                            }
                        }
                    } catch (IllegalAccessException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        }
        return deprecated;
    }
}
