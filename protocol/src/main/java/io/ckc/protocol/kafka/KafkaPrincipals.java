package io.ckc.protocol.kafka;

import io.ckc.protocol.auth.SecretFiles;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * A folder of Kafka principals: their passwords and the applications' channels in {@code principals.properties},
 * each principal's client settings in {@code <name>.properties} (the file {@code CKC_KAFKA_CLIENT_CONFIG} or
 * {@code kafka-console-consumer --consumer.config} takes), and the brokers' own login in {@code broker-jaas.conf}; all
 * readable by their owner only. {@code .ckc/kafka-auth/} for {@code ./ckc up --kafka-auth}, {@code docker/secrets/kafka/}
 * for compose. What each principal may do is {@link KafkaAccess}'s; {@link #grant} gives it to a broker.
 */
public final class KafkaPrincipals {

    /** The brokers' own user, and the operator's (topics, the perf tools, granting): the only super user. */
    public static final String ADMIN = "admin";
    static final String REGISTRY = "principals.properties";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;

    public KafkaPrincipals(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    /** The principal's password, made (and kept) the first time it is asked for. */
    public String password(String principal) {
        Properties registry = registry();
        String password = registry.getProperty(principal + ".password");
        if (password == null) {
            password = newPassword();
            registry.setProperty(principal + ".password", password);
            save(registry);
        }
        return password;
    }

    /** Where a folder of principals keeps one's client settings: {@code <dir>/<principal>.properties}. */
    public static Path clientConfigFile(Path dir, String principal) {
        return dir.resolve(principal + ".properties");
    }

    /** The principal's client settings file, written from its password. */
    public Path clientConfig(String principal) {
        Path file = clientConfigFile(dir, principal);
        Properties client = principal.equals(ADMIN) ? KafkaAccess.adminProperties(ADMIN, password(ADMIN))
                : KafkaAccess.clientProperties(principal, password(principal));
        write(file, out -> client.store(out, "Kafka client settings of principal " + principal));
        return file;
    }

    /**
     * The brokers' JAAS file: the admin's PLAIN login between brokers and controllers, and SCRAM for every client (its
     * users live in the cluster's metadata, made by {@link #grant}).
     */
    public Path brokerJaas() {
        String plain = KafkaAccess.brokerPlainJaas(ADMIN, password(ADMIN));
        String text = "broker.KafkaServer {\n  " + plain + "\n  org.apache.kafka.common.security.scram.ScramLoginModule "
                + "required;\n};\ncontroller.KafkaServer {\n  " + plain + "\n};\n";
        Path file = dir.resolve("broker-jaas.conf");
        write(file, out -> out.write(text.getBytes(StandardCharsets.UTF_8)));
        return file;
    }

    /** An admin client of the broker at {@code bootstrap}, as the brokers' own user. */
    public Admin admin(String bootstrap) {
        return TopicSetup.admin(bootstrap, KafkaAccess.adminProperties(ADMIN, password(ADMIN)));
    }

    /** The applications issued here, by name, with their channels. */
    public Map<String, List<String>> applications() {
        Properties registry = registry();
        Map<String, List<String>> applications = new TreeMap<>();
        for (String key : registry.stringPropertyNames()) {
            if (key.endsWith(".channels")) {
                applications.put(key.substring(0, key.length() - ".channels".length()),
                        Arrays.stream(registry.getProperty(key).split(",")).map(String::trim)
                                .filter(c -> !c.isEmpty()).toList());
            }
        }
        return applications;
    }

    /** Issues an application's principal for these channels, with a new password; returns its client settings file. */
    public Path issueApplication(String name, List<String> channels) {
        Properties registry = registry();
        registry.setProperty(name + ".password", newPassword());
        registry.setProperty(name + ".channels", String.join(",", channels));
        save(registry);
        return clientConfig(name);
    }

    /** Makes each principal a SCRAM user of the broker with its password and exactly its grants. */
    public void grant(Admin admin, Map<String, List<AclBinding>> grants) {
        grants.forEach((principal, acls) -> KafkaAccess.grant(admin, principal, password(principal), acls));
    }

    /**
     * Writes the passwords and client settings of these principals and of the admin, and the brokers' JAAS file: what
     * a stack's processes read before any broker runs (compose mounts the folder).
     */
    public void prepare(Iterable<String> principals) {
        for (String principal : principals) {
            clientConfig(principal);
        }
        clientConfig(ADMIN);
        brokerJaas();
    }

    private Properties registry() {
        Properties registry = new Properties();
        Path file = dir.resolve(REGISTRY);
        if (Files.exists(file)) {
            try (Reader in = Files.newBufferedReader(file)) {
                registry.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return registry;
    }

    private void save(Properties registry) {
        write(dir.resolve(REGISTRY), out -> registry.store(out, "Kafka principals and their passwords"));
    }

    private static void write(Path file, SecretFiles.Content content) {
        try {
            SecretFiles.write(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String newPassword() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
