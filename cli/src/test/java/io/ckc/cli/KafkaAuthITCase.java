package io.ckc.cli;

import io.ckc.jobs.ops.GrantKafkaAccess;
import io.ckc.protocol.kafka.KafkaAccess;
import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.KafkaPrincipals;
import io.ckc.protocol.kafka.TopicSetup;
import io.ckc.protocol.kafka.Topics;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintStream;
import java.io.Reader;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Least privilege on Kafka, end to end: a broker in this JVM with exactly the settings {@code ./ckc up --kafka-auth}
 * gives its own ({@link KafkaBroker#serverProperties(Path, int, int, String)}, formatted as it formats), and the grants
 * of {@link KafkaAccess}, applied as the stack applies them. Whoever writes {@code ckc.to-mn} reaches every device:
 * an application may, a gateway may not, and nobody without credentials gets in.
 */
class KafkaAuthITCase {

    private static String ADMIN_PASSWORD;
    private static final Topics TOPICS = Topics.DEFAULT;

    @TempDir
    static Path dir;
    private static KafkaRaftServer broker;
    private static String bootstrap;

    @BeforeAll
    static void startBroker() throws Exception {
        // the brokers' own password, from the principals' folder as compose's brokers read it (broker-jaas.conf)
        ADMIN_PASSWORD = new KafkaPrincipals(dir.resolve("credentials")).password(KafkaPrincipals.ADMIN);
        int port = freePort();
        int controllerPort = freePort();
        bootstrap = "127.0.0.1:" + port;
        Path file = dir.resolve("server.properties");
        Files.writeString(file, KafkaBroker.serverProperties(dir.resolve("data"), port, controllerPort, ADMIN_PASSWORD));
        List<String> format = KafkaBroker.formatArguments(Uuid.randomUuid().toString(), file);
        assertThat(StorageTool.execute(format.toArray(String[]::new), new PrintStream(PrintStream.nullOutputStream())))
                .isZero();
        Properties settings = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            settings.load(in);
        }
        broker = new KafkaRaftServer(KafkaConfig.fromProps(settings, false), Time.SYSTEM);
        broker.startup();
        try (Admin admin = admin()) {
            TopicSetup.create(admin, new TopicSetup(TOPICS, 1).allTopics(List.of("thermo", "other"), List.of("gw-1", "gw-2")));
            KafkaAccess.grant(admin, "thermo-app", "app-secret", KafkaAccess.application("thermo-app", TOPICS, List.of("thermo")));
            KafkaAccess.grant(admin, "ckc-gateway-gw-1", "gw-secret",
                    KafkaAccess.gateways("ckc-gateway-gw-1", TOPICS, List.of("gw-1")));
        }
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.shutdown();
            broker.awaitShutdown();
        }
    }

    @Test
    void anApplicationWritesToNodesAndAGatewayMayNot() throws Exception {
        write(client("thermo-app", "app-secret"), TOPICS.toMn());
        assertThatThrownBy(() -> write(client("ckc-gateway-gw-1", "gw-secret"), TOPICS.toMn()))
                .hasCauseInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void anApplicationReadsItsOwnChannelsOnly() throws Exception {
        write(client("ckc-gateway-gw-1", "gw-secret"), TOPICS.app("thermo"));
        assertThat(read(client("thermo-app", "app-secret"), "thermo-app-readers", TOPICS.app("thermo"))).isNotEmpty();
        assertThatThrownBy(() -> read(client("thermo-app", "app-secret"), "thermo-app-readers", TOPICS.app("other")))
                .isInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void aGatewayReadsItsOwnDeliveryTopicAndNoOther() throws Exception {
        write(asAdmin(), TOPICS.gateway("gw-1"));
        assertThat(read(client("ckc-gateway-gw-1", "gw-secret"), "ckc-gateway-gw-1", TOPICS.gateway("gw-1"))).isNotEmpty();
        assertThatThrownBy(() -> read(client("ckc-gateway-gw-1", "gw-secret"), "ckc-gateway-gw-1", TOPICS.gateway("gw-2")))
                .isInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void grantingAgainReplacesWhatWasGranted() throws Exception {
        try (Admin admin = admin()) {
            KafkaAccess.grant(admin, "moved-app", "first", KafkaAccess.application("moved-app", TOPICS, List.of("thermo")));
            KafkaAccess.grant(admin, "moved-app", "second", KafkaAccess.application("moved-app", TOPICS, List.of("other")));
        }
        write(asAdmin(), TOPICS.app("other"));
        assertThat(read(client("moved-app", "second"), "moved-app", TOPICS.app("other"))).isNotEmpty();
        assertThatThrownBy(() -> read(client("moved-app", "second"), "moved-app", TOPICS.app("thermo")))
                .isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> write(client("moved-app", "first"), TOPICS.toMn()))
                .hasCauseInstanceOf(SaslAuthenticationException.class);
    }

    /** Compose's grant tool, on this broker: a user per gateway process, each reading its own deliveries only. */
    @Test
    void composesGrantToolGivesEachGatewayItsOwnDeliveriesAndTheEchoTheNodes() throws Exception {
        KafkaPrincipals principals = new KafkaPrincipals(dir.resolve("credentials"));
        // gateways of their own: the other tests' gw-1 keeps its password
        principals.prepare(List.of(KafkaAccess.gatewayPrincipal("gw-c1"), KafkaAccess.ECHO));
        assertThat(new CommandLine(new GrantKafkaAccess()).execute(bootstrap, "--credentials",
                principals.dir().toString(), "--gateways", "gw-c1,gw-c2")).isZero();
        Properties gateway = KafkaClientConfig.security(principals.clientConfig(KafkaAccess.gatewayPrincipal("gw-c1")),
                "test");
        gateway.put("bootstrap.servers", bootstrap);
        assertThatThrownBy(() -> read(gateway, "ckc-gateway-gw-c1", TOPICS.gateway("gw-2")))
                .isInstanceOf(TopicAuthorizationException.class);
        write(gateway, TOPICS.app("thermo"));
        Properties echo = KafkaClientConfig.security(principals.clientConfig(KafkaAccess.ECHO), "test");
        echo.put("bootstrap.servers", bootstrap);
        write(echo, TOPICS.toMn());
    }

    @Test
    void aClientWithoutCredentialsGetsNothing() {
        Properties anonymous = new Properties();
        anonymous.put("bootstrap.servers", bootstrap);
        assertThatThrownBy(() -> write(anonymous, TOPICS.toMn()))
                .hasMessageContaining("not present in metadata");
    }

    private static Admin admin() {
        return TopicSetup.admin(bootstrap, KafkaAccess.adminProperties(KafkaAuth.ADMIN, ADMIN_PASSWORD));
    }

    private static Properties asAdmin() {
        Properties props = KafkaAccess.adminProperties(KafkaAuth.ADMIN, ADMIN_PASSWORD);
        props.put("bootstrap.servers", bootstrap);
        return props;
    }

    private static Properties client(String user, String password) {
        Properties props = KafkaAccess.clientProperties(user, password);
        props.put("bootstrap.servers", bootstrap);
        return props;
    }

    private static void write(Properties client, String topic) throws InterruptedException, ExecutionException {
        Properties props = new Properties();
        props.putAll(client);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 3_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            producer.send(new ProducerRecord<>(topic, "key", "value")).get();
        }
    }

    /** What the topic holds, read from its start under the group; a refusal is thrown as Kafka gives it. */
    private static List<String> read(Properties client, String group, String topic) {
        Properties props = new Properties();
        props.putAll(client);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (values.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    values.add(record.value());
                }
            }
        }
        return values;
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
