package io.ckc.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.ckc.jobs.JobCatalog;
import io.ckc.protocol.kafka.KafkaAccess;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kafka on Kubernetes with least privilege, checked offline: whoever writes {@code ckc.to-mn} reaches every device, so
 * every client logs in and each component is its own user with only its grants. Each check names the defect it
 * catches.
 */
class KafkaLeastPrivilegeTest {

    private static List<JsonNode> resources(String file) throws IOException {
        return ProjectFiles.documents(Files.readString(ProjectFiles.ROOT.resolve(file)));
    }

    /** The KafkaUsers of users.yaml, by name. */
    private static Map<String, JsonNode> users() throws IOException {
        Map<String, JsonNode> users = new TreeMap<>();
        for (JsonNode resource : resources("k8s/kafka/users.yaml")) {
            if (resource.path("kind").asText().equals("KafkaUser")) {
                users.put(resource.at("/metadata/name").asText(), resource);
            }
        }
        return users;
    }

    /** Defect: compose's brokers took any client on their network, in plaintext, and let it do anything. */
    @Test
    void composesKafkaTakesOnlyLoggedInClientsEachAsItsOwnPrincipal() throws IOException {
        JsonNode compose = ProjectFiles.compose();
        List<String> problems = new ArrayList<>();
        Set<String> gatewayIds = new TreeSet<>();
        compose.get("services").fields().forEachRemaining(entry -> {
            JsonNode service = entry.getValue();
            Map<String, String> env = ProjectFiles.environment(service);
            if (service.path("image").asText().startsWith("apache/kafka")) {
                if (env.get("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP").matches(".*:(PLAINTEXT|SSL)(,.*|$)")) {
                    problems.add(entry.getKey() + ": a listener without login: " + env.get("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"));
                }
                if (!"org.apache.kafka.metadata.authorizer.StandardAuthorizer".equals(env.get("KAFKA_AUTHORIZER_CLASS_NAME"))
                        || !"false".equals(env.get("KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND"))) {
                    problems.add(entry.getKey() + ": does not authorize every request");
                }
            }
            if (env.containsKey("CKC_GATEWAY_ID")) {
                gatewayIds.add(env.get("CKC_GATEWAY_ID"));
                String own = KafkaAccess.gatewayPrincipal(env.get("CKC_GATEWAY_ID")) + ".properties";
                if (!String.valueOf(env.get("CKC_KAFKA_CLIENT_CONFIG")).endsWith("/" + own)) {
                    problems.add(entry.getKey() + " logs in as " + env.get("CKC_KAFKA_CLIENT_CONFIG") + ", not " + own);
                }
            }
        });
        assertThat(compose.at("/services/submit/command").toString()).as("each job its own principal")
                .contains("--kafka-credentials");
        assertThat(compose.at("/services/kafka-access/command").toString()).as("a user for every gateway")
                .contains(String.join(",", gatewayIds));
        assertThat(ProjectFiles.environment(compose.at("/services/topics")).get("CKC_KAFKA_CLIENT_CONFIG"))
                .endsWith("/admin.properties");
        assertThat(problems).isEmpty();
    }

    /** Defect: a plaintext listener without authentication, open to every pod; no authorization at all. */
    @Test
    void everyListenerAuthenticatesOnlyCkcsPodsReachItAndTheClusterAuthorizes() throws IOException {
        JsonNode kafka = resources("k8s/kafka/kafka.yaml").stream()
                .filter(r -> r.path("kind").asText().equals("Kafka")).findFirst().orElseThrow();
        assertThat(kafka.at("/spec/kafka/authorization/type").asText()).isEqualTo("simple");
        assertThat(kafka.at("/spec/kafka/listeners")).isNotEmpty();
        for (JsonNode listener : kafka.at("/spec/kafka/listeners")) {
            String name = listener.path("name").asText();
            assertThat(listener.path("tls").asBoolean()).as("listener %s is TLS", name).isTrue();
            assertThat(listener.at("/authentication/type").asText()).as("listener %s authenticates", name)
                    .isEqualTo("scram-sha-512");
            assertThat(listener.at("/networkPolicyPeers/0/podSelector/matchLabels/app.kubernetes.io~1part-of").asText())
                    .as("listener %s takes CKC's pods only", name).isEqualTo("ckc");
        }
    }

    /** Defect: jobs sharing one user (or none), so any job could write what another may. */
    @Test
    void everyJobLogsInAsTheUserOfItsKindAndThatUserExists() throws IOException {
        Map<String, JsonNode> users = users();
        List<String> problems = new ArrayList<>();
        Map<String, String> expected = new TreeMap<>();
        for (JobCatalog.Launch launch : JobCatalog.stack(1, 1, 1, "grid-cell")) {
            expected.put("k8s/flink/" + launch.name() + ".yaml", launch.kind().principal());
        }
        for (Path rule : ProjectFiles.files("k8s/rules", ".yaml")) {
            if (!KubernetesManifestsTest.KUSTOMIZE_FILES.contains(rule.getFileName().toString())) {
                expected.put(ProjectFiles.ROOT.relativize(rule).toString(), KafkaAccess.RULES);
            }
        }
        for (var file : expected.entrySet()) {
            JsonNode deployment = resources(file.getKey()).get(0);
            JsonNode pod = ProjectFiles.flinkSpec(deployment).at("/podTemplate/spec");
            String user = secretOfVolume(pod, "kafka-user");
            if (!file.getValue().equals(user)) {
                problems.add(file.getKey() + " logs in as '" + user + "', not " + file.getValue());
            }
            if (!users.containsKey(user)) {
                problems.add(file.getKey() + ": no KafkaUser " + user);
            }
            checkClientSettings(file.getKey(), pod.at("/containers/0"),
                    String.join(" ", texts(ProjectFiles.flinkSpec(deployment).at("/job/args"))), problems);
        }
        assertThat(problems).isEmpty();
    }

    /** Defect: a gateway pod without credentials, or with a user that reads every gateway's deliveries. */
    @Test
    void everyGatewayPodMountsItsOwnUserWhichReadsOnlyItsOwnDeliveries() throws IOException {
        JsonNode statefulSet = resources("k8s/gateway/gateway.yaml").get(0);
        int replicas = statefulSet.at("/spec/replicas").asInt();
        JsonNode pod = statefulSet.at("/spec/template/spec");
        List<String> problems = new ArrayList<>();
        checkClientSettings("gateway", pod.at("/containers/0"), null, problems);
        JsonNode mount = mount(pod.at("/containers/0"), "kafka-users");
        assertThat(mount.path("mountPath").asText()).isEqualTo(Manifests.KAFKA_USER_DIR);
        assertThat(mount.path("subPathExpr").asText()).as("each pod takes its own folder").isEqualTo("$(POD_NAME)");
        Map<String, String> sources = new TreeMap<>();
        for (JsonNode volume : pod.path("volumes")) {
            if (volume.path("name").asText().equals("kafka-users")) {
                for (JsonNode source : volume.at("/projected/sources")) {
                    sources.put(source.at("/secret/items/0/path").asText(), source.at("/secret/name").asText());
                }
            }
        }
        Map<String, JsonNode> users = users();
        assertThat(Manifests.GATEWAYS).as("the users generated for the gateways").isEqualTo(replicas);
        for (int i = 0; i < replicas; i++) {
            String gateway = Manifests.GATEWAY_SET + "-" + i;
            String user = KafkaAccess.gatewayPrincipal(gateway);
            assertThat(sources).as("pod %s", gateway).containsEntry(gateway + "/sasl.jaas.config", user);
            assertThat(users).as("its KafkaUser").containsKey(user);
            Set<String> reads = new TreeSet<>();
            for (JsonNode acl : users.get(user).at("/spec/authorization/acls")) {
                if (acl.at("/resource/type").asText().equals("topic") && acl.path("operations").toString().contains("Read")) {
                    reads.add(acl.at("/resource/name").asText() + " " + acl.at("/resource/patternType").asText());
                }
            }
            assertThat(reads).as("what %s reads", user).contains("ckc.gw." + gateway + " literal")
                    .noneMatch(r -> r.startsWith("ckc.gw.gateway-") && !r.equals("ckc.gw." + gateway + " literal"))
                    .noneMatch(r -> r.endsWith(" prefix"));
        }
        assertThat(problems).isEmpty();
    }

    /** Defect: an application's user that may write the core's topics, or read every channel. */
    @Test
    void anApplicationsUserWritesToNodesAndReadsOnlyItsChannels() throws IOException {
        JsonNode user = ProjectFiles.documents(Manifests.applicationUser("thermo", List.of("thermo"))).get(0);
        List<String> grants = new ArrayList<>();
        for (JsonNode acl : user.at("/spec/authorization/acls")) {
            grants.add(acl.path("operations").get(0).asText() + " " + acl.at("/resource/type").asText() + " "
                    + acl.at("/resource/name").asText() + " " + acl.at("/resource/patternType").asText());
        }
        assertThat(grants).contains("Read topic app.thermo literal", "Write topic ckc.to-mn literal",
                "Read group thermo prefix").noneMatch(g -> g.startsWith("Write topic app."))
                .noneMatch(g -> g.contains("ckc.gw.")).noneMatch(g -> g.startsWith("Read topic ckc.to-mn"));
    }

    /** Every Kafka client of a pod: the shared settings file, its user's Secret, the cluster CA, the TLS listener. */
    private static void checkClientSettings(String where, JsonNode container, String jobArgs, List<String> problems) {
        Map<String, String> env = new TreeMap<>();
        for (JsonNode variable : container.path("env")) {
            env.put(variable.path("name").asText(), variable.path("value").asText());
        }
        if (!(Manifests.KAFKA_CLIENT_DIR + "/client.properties").equals(env.get("CKC_KAFKA_CLIENT_CONFIG"))) {
            problems.add(where + ": CKC_KAFKA_CLIENT_CONFIG is " + env.get("CKC_KAFKA_CLIENT_CONFIG"));
        }
        String bootstrap = jobArgs != null ? jobArgs : env.get("CKC_KAFKA_BOOTSTRAP");
        if (bootstrap == null || !bootstrap.contains(":9093")) {
            problems.add(where + ": a plaintext bootstrap " + bootstrap);
        }
        for (String mount : List.of(Manifests.KAFKA_CLIENT_DIR, Manifests.KAFKA_CA_DIR)) {
            boolean mounted = false;
            for (JsonNode m : container.path("volumeMounts")) {
                mounted |= m.path("mountPath").asText().equals(mount);
            }
            if (!mounted) {
                problems.add(where + ": nothing mounted at " + mount);
            }
        }
    }

    @Test
    void theSharedClientSettingsReadThePasswordFromTheMountedUserAndTrustTheClusterCa() throws IOException {
        JsonNode configMap = resources("k8s/kafka/users.yaml").get(0);
        assertThat(configMap.at("/metadata/name").asText()).isEqualTo("ckc-kafka-client");
        String properties = configMap.at("/data/client.properties").asText();
        assertThat(properties).contains("security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512",
                "ssl.truststore.location=" + Manifests.KAFKA_CA_DIR + "/ca.crt",
                "sasl.jaas.config=${dir:" + Manifests.KAFKA_USER_DIR + ":sasl.jaas.config}").doesNotContain("password=");
        java.util.Properties parsed = new java.util.Properties();
        parsed.load(new java.io.StringReader(properties));
        Path file = Files.createTempFile("client", ".properties");
        try {
            Files.writeString(file, properties);
            assertThat(io.ckc.protocol.kafka.KafkaClientConfig.security(file, "test")).isEqualTo(parsed);
        } finally {
            Files.delete(file);
        }
    }

    private static String secretOfVolume(JsonNode pod, String volume) {
        for (JsonNode v : pod.path("volumes")) {
            if (v.path("name").asText().equals(volume)) {
                return v.at("/secret/secretName").asText();
            }
        }
        return null;
    }

    private static JsonNode mount(JsonNode container, String volume) {
        for (JsonNode m : container.path("volumeMounts")) {
            if (m.path("name").asText().equals(volume)) {
                return m;
            }
        }
        throw new AssertionError("no mount of " + volume);
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(t -> texts.add(t.asText()));
        return texts;
    }
}
