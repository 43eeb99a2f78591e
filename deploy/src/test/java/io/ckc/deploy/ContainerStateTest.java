package io.ckc.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * The containers' files and state as the images would really treat them, read without a container
 * engine: CKC's Dockerfile and compose file held against what the upstream images do
 * ({@link ImageFacts}). Each check names the defect it catches.
 */
class ContainerStateTest {

    private static final Path DOCKER = ProjectFiles.ROOT.resolve("docker");
    private static JsonNode compose;
    private static Map<String, Stage> stages;

    /** One stage of CKC's Dockerfile: its base, and who owns what it copies in and makes. */
    record Stage(String name, String from, ImageFacts base, List<Copy> copies, Map<String, String> madeDirs) {
    }

    /** A COPY: where to, and the owner it gives (root without --chown, whatever the USER). */
    record Copy(String destination, String owner) {
    }

    @BeforeAll
    static void read() throws IOException {
        compose = ProjectFiles.compose();
        stages = parse(Files.readString(DOCKER.resolve("Dockerfile")));
    }

    /** The Dockerfile's stages: FROM, USER, COPY and the mkdir/chown of RUN lines are all the checks need. */
    static Map<String, Stage> parse(String dockerfile) {
        Map<String, Stage> parsed = new LinkedHashMap<>();
        Stage stage = null;
        String user = "root";
        for (String line : dockerfile.replaceAll("\\\\\\n", " ").split("\n")) {
            String[] words = line.trim().split("\\s+");
            if (line.isBlank() || line.trim().startsWith("#")) {
                continue;
            }
            switch (words[0].toUpperCase()) {
                case "FROM" -> {
                    String from = words[1];
                    ImageFacts base = parsed.containsKey(from) ? parsed.get(from).base()
                            : ImageFacts.of(from).orElseThrow(() -> new AssertionError("no facts for image " + from));
                    String name = words.length >= 4 && words[2].equalsIgnoreCase("AS") ? words[3] : from;
                    stage = new Stage(name, from, base, new ArrayList<>(), new HashMap<>());
                    parsed.put(name, stage);
                    user = base.user();
                }
                case "USER" -> user = words[1];
                case "COPY" -> {
                    String owner = "root";
                    for (String word : words) {
                        if (word.startsWith("--chown=")) {
                            owner = word.substring("--chown=".length()).split(":")[0];
                        }
                    }
                    stage.copies().add(new Copy(words[words.length - 1], owner));
                }
                case "RUN" -> {
                    Matcher mkdir = Pattern.compile("mkdir -p ((?:/[\\w./-]+\\s*)+)").matcher(line);
                    while (mkdir.find()) {
                        for (String dir : mkdir.group(1).trim().split("\\s+")) {
                            stage.madeDirs().put(dir, user);
                        }
                    }
                    Matcher chown = Pattern.compile("chown (?:-R )?([\\w-]+)(?::[\\w-]+)? ((?:/[\\w./-]+\\s*)+)").matcher(line);
                    while (chown.find()) {
                        for (String dir : chown.group(2).trim().split("\\s+")) {
                            stage.madeDirs().put(dir, chown.group(1));
                        }
                    }
                }
                default -> {
                }
            }
        }
        return parsed;
    }

    /** Named volumes mounted by a service (not bind mounts of the project's files), by mount point. */
    /** Where a service mounts named volumes it writes: a read-only one needs files it can read, not a directory it owns. */
    private static List<String> volumeMounts(JsonNode service) {
        List<String> mounts = new ArrayList<>();
        for (JsonNode volume : service.path("volumes")) {
            String[] parts = volume.asText().split(":");
            boolean readOnly = parts.length > 2 && parts[2].equals("ro");
            if (!parts[0].startsWith(".") && !parts[0].startsWith("/") && !readOnly) {
                mounts.add(parts[1]);
            }
        }
        return mounts;
    }

    /** The stage of CKC's Dockerfile a service runs: its build target, or the stage its ckc-NAME image comes from. */
    private static String stageOf(JsonNode service) {
        String target = service.path("build").path("target").asText(null);
        String image = service.path("image").asText();
        return target != null ? target : image.startsWith("ckc-") ? image.substring(4).split(":")[0] : null;
    }

    private static ImageFacts imageOf(JsonNode service) {
        String stage = stageOf(service);
        String image = service.path("image").asText();
        if (stage != null) {
            return stages.get(stage).base();
        }
        return ImageFacts.of(image).orElseThrow(() -> new AssertionError("no facts for image " + image));
    }

    /** Defect: config.yaml copied in as root, so the Flink entrypoint cannot rewrite it and drops every setting. */
    @Test
    void filesTheEntrypointRewritesBelongToTheUserItRunsAs() {
        List<String> problems = new ArrayList<>();
        for (Stage stage : stages.values()) {
            for (Copy copy : stage.copies()) {
                for (String rewritten : stage.base().rewritten()) {
                    boolean hits = copy.destination().equals(rewritten)
                            || copy.destination().endsWith("/") && ImageFacts.under(rewritten, copy.destination());
                    if (hits && !copy.owner().equals(stage.base().user())) {
                        problems.add(stage.name() + ": " + copy.destination() + " is owned by " + copy.owner()
                                + ", but " + stage.from() + "'s entrypoint rewrites it as " + stage.base().user());
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    /** Defect: a named volume mounted where the image has no directory is created root-owned, unwritable. */
    @Test
    void everyVolumeMountsOnADirectoryOfTheImageThatBelongsToItsUser() {
        List<String> problems = new ArrayList<>();
        compose.get("services").fields().forEachRemaining(entry -> {
            JsonNode service = entry.getValue();
            ImageFacts image = imageOf(service);
            String stage = stageOf(service);
            for (String mount : volumeMounts(service)) {
                String madeBy = stage == null ? null : stages.get(stage).madeDirs().get(mount);
                boolean owned = madeBy != null ? madeBy.equals(image.user()) : image.owns(mount);
                if (!owned) {
                    problems.add(entry.getKey() + ": volume at " + mount + " is not a directory of " + image.image()
                            + " owned by " + image.user());
                }
            }
        });
        assertThat(problems).isEmpty();
    }

    /** Defect: Kafka wrote its log to /tmp in the container, not to its volume: every message lost on recreate. */
    @Test
    void everyStatefulServiceKeepsItsDataOnAVolume() throws IOException {
        List<String> problems = new ArrayList<>();
        var services = compose.get("services").fields();
        while (services.hasNext()) {
            var entry = services.next();
            JsonNode service = entry.getValue();
            List<String> dataDirs = new ArrayList<>();
            String imageData = imageOf(service).dataDirectory(ProjectFiles.environment(service));
            if (imageData != null) {
                dataDirs.add(imageData);
            }
            String flinkProperties = ProjectFiles.environment(service).get("FLINK_PROPERTIES");
            if (flinkProperties != null) {
                Map<String, Object> properties = new Yaml().load(flinkProperties);
                for (String key : List.of("execution.checkpointing.dir", "execution.checkpointing.savepoint-dir")) {
                    assertThat(properties).as(entry.getKey() + " sets " + key).containsKey(key);
                    dataDirs.add(properties.get(key).toString().replaceFirst("^file://", ""));
                }
            }
            for (String dir : dataDirs) {
                if (volumeMounts(service).stream().noneMatch(mount -> ImageFacts.under(dir, mount))) {
                    problems.add(entry.getKey() + " keeps its data in " + dir + ", which is on no volume");
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    /** Defect: a CLUSTER_ID that is not a 16-byte UUID in base64: the brokers refuse to format their storage. */
    @Test
    void theKafkaClusterIdIsAKafkaUuid() {
        String clusterId = compose.at("/x-kafka-environment/CLUSTER_ID").asText();
        assertThatCode(() -> Uuid.fromString(clusterId)).as("CLUSTER_ID %s", clusterId).doesNotThrowAnyException();
    }

    @Test
    void theDockerfileParserSeesOwnersAndMadeDirectories() {
        Map<String, Stage> parsed = parse("""
                FROM flink:2.2.0-java17 AS jobs
                COPY a.yaml /opt/flink/conf/config.yaml
                USER root
                RUN mkdir -p /data /more && \\
                    chown flink:flink /data
                COPY --chown=flink:flink b /opt/flink/usrlib/
                """);
        Stage jobs = parsed.get("jobs");
        assertThat(jobs.copies()).containsExactly(new Copy("/opt/flink/conf/config.yaml", "root"),
                new Copy("/opt/flink/usrlib/", "flink"));
        assertThat(jobs.madeDirs()).containsEntry("/data", "flink").containsEntry("/more", "root");
    }
}
