package io.ckc.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.yaml.snakeyaml.Yaml;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The project's files as the deployment checks read them: the root, and YAML documents. */
final class ProjectFiles {

    static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    static final YAMLMapper YAML = new YAMLMapper();

    private ProjectFiles() {
    }

    /** Every YAML document of a file (a multi-document file gives several; empty ones are left out). */
    static List<JsonNode> documents(String yaml) throws IOException {
        List<JsonNode> documents = new ArrayList<>();
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml)) {
            while (it.hasNext()) {
                JsonNode document = it.next();
                if (document != null && !document.isNull() && !document.isMissingNode() && !document.isEmpty()) {
                    documents.add(document);
                }
            }
        }
        return documents;
    }

    /** The files under a folder of the project whose names end with one of the suffixes. */
    static List<Path> files(String folder, String... suffixes) throws IOException {
        try (Stream<Path> paths = Files.walk(ROOT.resolve(folder))) {
            return paths.filter(Files::isRegularFile)
                    .filter(p -> Stream.of(suffixes).anyMatch(s -> p.getFileName().toString().endsWith(s)))
                    .sorted().toList();
        }
    }

    /** docker/compose.yaml as a tree, its merge keys resolved (SnakeYAML does them; Jackson's YAML reader does not). */
    static JsonNode compose() throws IOException {
        return YAML.valueToTree(new Yaml().load(Files.readString(ROOT.resolve("docker/compose.yaml"))));
    }

    /** A compose service's environment; {@code ${NAME:-default}} takes its default, as compose does without NAME set. */
    static Map<String, String> environment(JsonNode service) {
        Map<String, String> env = new HashMap<>();
        service.path("environment").fields().forEachRemaining(e -> env.put(e.getKey(),
                e.getValue().asText().replaceAll("\\$\\{[A-Z_]+:-([^}]*)}", "$1")));
        return env;
    }

    /** {@code kubectl kustomize} of a folder, as the resources it applies; fails on kustomize's error. */
    static List<JsonNode> kustomize(Path folder) throws IOException, InterruptedException {
        Process kustomize = new ProcessBuilder("kubectl", "kustomize", folder.toString()).redirectErrorStream(true).start();
        String rendered = new String(kustomize.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!kustomize.waitFor(60, TimeUnit.SECONDS) || kustomize.exitValue() != 0) {
            throw new AssertionError("kubectl kustomize " + folder + " failed:\n" + rendered);
        }
        return documents(rendered);
    }

    /**
     * The FlinkDeployment spec of a Flink resource: its own, or a FlinkBlueGreenDeployment's template's; a missing node
     * for anything else.
     */
    static JsonNode flinkSpec(JsonNode resource) {
        return switch (resource.path("kind").asText()) {
            case "FlinkDeployment" -> resource.path("spec");
            case "FlinkBlueGreenDeployment" -> resource.at("/spec/template/spec");
            default -> com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        };
    }

    /** Whether a command is installed (on the PATH): checks that need one skip without it. */
    static boolean onPath(String command) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, command)));
    }
}
