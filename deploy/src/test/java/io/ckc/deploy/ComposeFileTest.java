package io.ckc.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.ckc.gateway.GatewayConfig;
import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.TopicSetup;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** docker/compose.yaml and docker/Dockerfile against the code's own configuration. */
class ComposeFileTest {

    private static final Path DOCKER = ProjectFiles.ROOT.resolve("docker");
    private static JsonNode compose;

    @BeforeAll
    static void read() throws IOException {
        compose = ProjectFiles.compose();
    }

    private static Map<String, JsonNode> services(String image) {
        Map<String, JsonNode> services = new HashMap<>();
        compose.get("services").fields().forEachRemaining(e -> {
            if (e.getValue().path("image").asText().startsWith(image)) {
                services.put(e.getKey(), e.getValue());
            }
        });
        return services;
    }

    /** The gateways: services of the gateway image that run the gateway (not a one-shot tool). */
    private static Map<String, JsonNode> gateways() {
        Map<String, JsonNode> gateways = services("ckc-gateway");
        gateways.values().removeIf(s -> s.has("entrypoint"));
        return gateways;
    }

    @Test
    void theImagesAreBuiltWithTheCommandCiRuns() throws IOException {
        String dockerfile = Files.readString(DOCKER.resolve("Dockerfile"));
        String ci = Files.readString(ProjectFiles.ROOT.resolve(".ci/run"));
        String readme = Files.readString(ProjectFiles.ROOT.resolve("README.md"));
        assertThat(dockerfile).contains("RUN bash .ci/run ${MAVEN_ARGS}");
        assertThat(ci).contains("mvn -B -ntp verify");
        assertThat(readme).contains("mvn -B -ntp verify");
        Matcher copy = Pattern.compile("(?m)^COPY (?:--chown=\\S+ )?(?!--from)(\\S+) ").matcher(dockerfile);
        while (copy.find()) {
            assertThat(ProjectFiles.ROOT.resolve(copy.group(1))).as("COPY " + copy.group(1)).exists();
        }
        Matcher built = Pattern.compile("COPY --from=build (?:--chown=\\S+ )?/src/(\\S+) ").matcher(dockerfile);
        List<String> artifacts = new ArrayList<>();
        while (built.find()) {
            artifacts.add(built.group(1));
        }
        assertThat(artifacts).containsExactlyInAnyOrder("jobs/target/ckc-jobs.jar", "gateway-edge/target/ckc-gateway.jar");
        for (String pom : List.of("jobs/pom.xml", "gateway-edge/pom.xml")) {
            String name = Path.of(artifacts.stream().filter(a -> a.startsWith(pom.split("/")[0])).findFirst().orElseThrow())
                    .getFileName().toString().replace(".jar", "");
            assertThat(Files.readString(ProjectFiles.ROOT.resolve(pom))).contains("<finalName>" + name + "</finalName>");
        }
    }

    @Test
    void everyFileTheComposeFileNamesExists() {
        compose.get("services").fields().forEachRemaining(e -> {
            JsonNode build = e.getValue().path("build");
            if (!build.isMissingNode()) {
                Path context = DOCKER.resolve(build.get("context").asText()).normalize();
                assertThat(context.resolve(build.get("dockerfile").asText())).as(e.getKey() + " dockerfile").exists();
            }
            for (JsonNode volume : e.getValue().path("volumes")) {
                String source = volume.asText().split(":")[0];
                if (source.startsWith(".")) {
                    assertThat(DOCKER.resolve(source).normalize()).as(e.getKey() + " volume " + source).exists();
                }
            }
        });
    }

    @Test
    void theGatewaysAreConfiguredOnlyWithWhatTheGatewayReads() throws IOException {
        Map<String, JsonNode> gateways = gateways();
        assertThat(gateways).hasSize(3);
        String targets = Files.readString(DOCKER.resolve("prometheus-targets/ckc-gateway.json"));
        Set<Integer> udpPorts = new HashSet<>();
        for (var gateway : gateways.entrySet()) {
            Map<String, String> env = ProjectFiles.environment(gateway.getValue());
            Set<String> read = new TreeSet<>();
            Map<String, String> recording = new HashMap<>(env) {
                @Override
                public String getOrDefault(Object key, String defaultValue) {
                    read.add((String) key);
                    return super.getOrDefault(key, defaultValue);
                }

                @Override
                public String get(Object key) {
                    read.add((String) key);
                    return super.get(key);
                }
            };
            GatewayConfig config = GatewayConfig.fromEnv(recording);
            read.add(KafkaClientConfig.ENV);
            assertThat(read).as(gateway.getKey() + ": variables the gateway reads").containsAll(env.keySet());
            String published = gateway.getValue().get("ports").get(0).asText();
            assertThat(published).as(gateway.getKey() + " publishes its UDP port")
                    .isEqualTo(config.udpPort() + ":" + config.udpPort() + "/udp");
            assertThat(udpPorts.add(config.udpPort())).isTrue();
            assertThat(targets).as("Prometheus scrapes " + gateway.getKey())
                    .contains("\"" + gateway.getKey() + ":" + config.metricsPort() + "\"");
        }
    }

    @Test
    void topicSetupCreatesEveryGatewaysTopicWithThreeReplicas() {
        JsonNode topics = compose.at("/services/topics");
        List<String> args = new ArrayList<>();
        topics.get("command").forEach(a -> args.add(a.asText()));
        TopicSetup.Options options = TopicSetup.Options.parse(args.toArray(String[]::new), 1);
        Set<String> gatewayIds = new TreeSet<>();
        gateways().values().forEach(g -> gatewayIds.add(ProjectFiles.environment(g).get("CKC_GATEWAY_ID")));
        assertThat(new TreeSet<>(options.gateways())).isEqualTo(gatewayIds);
        assertThat(options.topics()).allSatisfy(topic -> {
            assertThat(topic.replicationFactor()).isEqualTo((short) 3);
            assertThat(topic.configs()).containsEntry("min.insync.replicas", "2");
        });
        assertThat(options.topics()).extracting(NewTopic::name).contains("ckc.gw.gw-1", "ckc.gw.gw-3");
    }

    @Test
    void flinkRunsTheConfigurationOfRecordWithOnlyTheContainersAddressesAndStateChanged() throws IOException {
        @SuppressWarnings("unchecked")
        Map<String, Object> record = ProjectFiles.YAML.readValue(
                ProjectFiles.ROOT.resolve("runtime/flink/conf/config.yaml").toFile(), Map.class);
        Set<String> addedForContainers = Set.of("execution.checkpointing.dir", "execution.checkpointing.savepoint-dir",
                "high-availability.type", "high-availability.zookeeper.quorum", "high-availability.storageDir",
                "high-availability.cluster-id");
        String targets = Files.readString(DOCKER.resolve("prometheus-targets/flink.json"));
        for (String service : List.of("jobmanager", "taskmanager")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> properties = ProjectFiles.YAML.readValue(
                    compose.at("/services/" + service + "/environment/FLINK_PROPERTIES").asText(), Map.class);
            for (String key : properties.keySet()) {
                assertThat(record.containsKey(key) || addedForContainers.contains(key))
                        .as(service + " sets " + key + ", which the configuration of record does not have").isTrue();
            }
            assertThat(targets).contains("\"" + service + ":" + properties.get("metrics.reporter.prom.port") + "\"");
            // The image's entrypoint takes every line of FLINK_PROPERTIES as a key (a comment too) and re-nests
            // the dotted keys into config.yaml: a key that is a prefix of another is dropped or fails the start.
            String block = compose.at("/services/" + service + "/environment/FLINK_PROPERTIES").asText();
            assertThat(block.lines()).as(service + ": no comment lines in FLINK_PROPERTIES")
                    .noneMatch(line -> line.strip().startsWith("#"));
            Set<String> keys = new TreeSet<>(record.keySet());
            keys.addAll(properties.keySet());
            for (String key : keys) {
                assertThat(keys).as(service + ": " + key + " is a prefix of another key")
                        .noneMatch(other -> other.startsWith(key + "."));
            }
        }
    }

    /** Docker Compose's own parser, where it is installed (Debian's docker-compose works without a daemon). */
    @Test
    void composeAcceptsTheFile() throws Exception {
        Assumptions.assumeTrue(ProjectFiles.onPath("docker-compose"),
                "docker-compose is not installed (apt-get install docker-compose): the compose parser is not run here");
        ProcessBuilder builder = new ProcessBuilder("docker-compose", "-f", DOCKER.resolve("compose.yaml").toString(),
                "config", "-q").redirectErrorStream(true);
        // the secrets it has no default for, as an operator sets them
        builder.environment().put("CKC_TLS_KEYSTORE_PASSWORD", "set-by-the-operator");
        builder.environment().put("GRAFANA_ADMIN_PASSWORD", "set-by-the-operator");
        builder.environment().put("CKC_UID", "1000");
        Process config = builder.start();
        String output = new String(config.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(config.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(config.exitValue()).as(output).isZero();
    }
}
