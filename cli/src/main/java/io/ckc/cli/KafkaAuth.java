package io.ckc.cli;

import io.ckc.protocol.auth.SecretFiles;
import io.ckc.protocol.kafka.KafkaAccess;
import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.TopicSetup;
import io.ckc.protocol.kafka.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The local stack's Kafka principals ({@code ./ckc up --kafka-auth}): their passwords and the applications' channels in
 * {@code .ckc/kafka-auth/principals.properties}, each principal's client settings in {@code <name>.properties} beside
 * it (the file {@code CKC_KAFKA_CLIENT_CONFIG} or {@code kafka-console-consumer --consumer.config} takes), all readable
 * by their owner only. They outlive {@code ./ckc down}: every {@code up} gives the new broker the same users, and an
 * application's principal is issued once. What each may do is {@link KafkaAccess}'s.
 */
final class KafkaAuth {

    /** The broker's own user, and the operator's (topics, the perf tools): a super user. */
    static final String ADMIN = "admin";
    private static final String REGISTRY = "principals.properties";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;

    KafkaAuth(Home home) {
        this.dir = home.kafkaCredentials();
    }

    Path dir() {
        return dir;
    }

    /** The principal's password, made (and kept) the first time it is asked for. */
    String password(String principal) {
        Properties registry = registry();
        String password = registry.getProperty(principal + ".password");
        if (password == null) {
            password = newPassword();
            registry.setProperty(principal + ".password", password);
            save(registry);
        }
        return password;
    }

    /** The principal's client settings file, written from its password; what {@code CKC_KAFKA_CLIENT_CONFIG} names. */
    Path clientConfig(String principal) {
        Path file = dir.resolve(principal + ".properties");
        Properties client = KafkaAccess.clientProperties(principal, password(principal));
        try {
            SecretFiles.write(file, out -> client.store(out, "Kafka client settings of principal " + principal
                    + " (./ckc up --kafka-auth)"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** The environment that makes a process's Kafka clients the principal. */
    Map<String, String> environment(String principal) {
        return Map.of(KafkaClientConfig.ENV, clientConfig(principal).toString());
    }

    /** An admin client of the broker as the operator. */
    Admin admin() {
        return TopicSetup.admin(KafkaBroker.BOOTSTRAP, KafkaAccess.clientProperties(ADMIN, password(ADMIN)));
    }

    /** The principal of a stack's gateways process: one for all in one JVM, or {@code ckc-gateway-<id>} for one. */
    static String gatewayPrincipal(List<String> gatewayIds) {
        return gatewayIds.size() == 1 ? KafkaAccess.gatewayPrincipal(gatewayIds.get(0)) : KafkaAccess.GATEWAYS;
    }

    /**
     * Gives the broker every principal of the stack with exactly its grants: the gateways' processes, the jobs, and
     * the applications issued with {@code ./ckc credentials app}. Returns once the broker has them.
     */
    void grantStack(StackShape shape) {
        Topics topics = Topics.DEFAULT;
        List<Grant> grants = new ArrayList<>();
        if (shape.gatewayProcesses().equals("one")) {
            grants.add(new Grant(gatewayPrincipal(shape.gatewayIds()),
                    KafkaAccess.gateways(gatewayPrincipal(shape.gatewayIds()), topics, shape.gatewayIds())));
        } else {
            for (String id : shape.gatewayIds()) {
                grants.add(new Grant(gatewayPrincipal(List.of(id)), KafkaAccess.gateways(gatewayPrincipal(List.of(id)),
                        topics, List.of(id))));
            }
        }
        grants.add(new Grant(KafkaAccess.DELIVERY, KafkaAccess.delivery(topics, List.of(Topics.IN_JOB_ECHO_CHANNEL))));
        grants.add(new Grant(KafkaAccess.POA_MANAGER, KafkaAccess.poaManager(topics)));
        grants.add(new Grant(KafkaAccess.ECHO, KafkaAccess.application(KafkaAccess.ECHO, topics, List.of("echo"))));
        grants.add(new Grant(KafkaAccess.GROUP_DEFINERS,
                KafkaAccess.groupDefiners(KafkaAccess.GROUP_DEFINERS,
                io.ckc.jobs.groups.GroupDefinerJob.NAME_PREFIX, topics)));
        grants.add(new Grant(KafkaAccess.RULES, KafkaAccess.groupDefiners(KafkaAccess.RULES,
                io.ckc.jobs.sql.SqlRunnerJob.NAME_PREFIX, topics)));
        Properties registry = registry();
        for (String name : applications(registry)) {
            grants.add(new Grant(name, KafkaAccess.application(name, topics, channelsOf(registry, name))));
        }
        try (Admin admin = admin()) {
            for (Grant grant : grants) {
                KafkaAccess.grant(admin, grant.principal(), password(grant.principal()), grant.acls());
                clientConfig(grant.principal());
            }
        }
    }

    /**
     * Issues (or issues again, with a new password) an application's principal for these channels; granted at once on
     * a running stack with Kafka authentication. Returns its client settings file.
     */
    Path issueApplication(String name, List<String> channels, boolean stackRunsWithAuth) {
        checkApplication(name, channels);
        Properties registry = registry();
        registry.setProperty(name + ".password", newPassword());
        registry.setProperty(name + ".channels", String.join(",", channels));
        save(registry);
        if (stackRunsWithAuth) {
            try (Admin admin = admin()) {
                TopicSetup.create(admin, new TopicSetup(Topics.DEFAULT, 1).allTopics(channels, List.of()));
                KafkaAccess.grant(admin, name, password(name), KafkaAccess.application(name, Topics.DEFAULT, channels));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Ckc.Failure("interrupted while granting " + name);
            }
        }
        return clientConfig(name);
    }

    /** An application's name and channels as a principal and its grants take them, or a clear refusal. */
    static void checkApplication(String name, List<String> channels) {
        if (name.equals(ADMIN) || name.startsWith("ckc-") || !name.matches("[a-z0-9]([a-z0-9.-]{0,98}[a-z0-9])?")) {
            throw new Ckc.Failure("an application's name is lower-case letters, digits, '.' or '-' (it names a "
                    + "Kubernetes KafkaUser and its Secret), not 'admin' nor ckc-*: '" + name + "'");
        }
        for (String channel : channels) {
            if (!Topics.isValidChannel(channel)) {
                throw new Ckc.Failure("'" + channel + "' is not a channel name");
            }
        }
    }

    private static List<String> applications(Properties registry) {
        return registry.stringPropertyNames().stream().filter(k -> k.endsWith(".channels"))
                .map(k -> k.substring(0, k.length() - ".channels".length())).sorted().toList();
    }

    private static List<String> channelsOf(Properties registry, String name) {
        return Arrays.stream(registry.getProperty(name + ".channels", "").split(","))
                .map(String::trim).filter(c -> !c.isEmpty()).toList();
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
        try {
            SecretFiles.write(dir.resolve(REGISTRY), out -> registry.store(out,
                    "the local stack's Kafka principals (./ckc up --kafka-auth, ./ckc credentials app)"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String newPassword() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private record Grant(String principal, List<AclBinding> acls) {
    }
}
