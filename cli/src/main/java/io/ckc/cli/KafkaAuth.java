package io.ckc.cli;

import io.ckc.jobs.StackAccess;
import io.ckc.protocol.kafka.KafkaAccess;
import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.KafkaPrincipals;
import io.ckc.protocol.kafka.TopicSetup;
import io.ckc.protocol.kafka.Topics;
import org.apache.kafka.clients.admin.Admin;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The local stack's Kafka principals ({@code ./ckc up --kafka-auth}) in {@code .ckc/kafka-auth/}
 * ({@link KafkaPrincipals}): they outlive {@code ./ckc down}, so every {@code up} gives the new broker the same users,
 * and an application's principal is issued once. What each may do is {@link StackAccess}'s.
 */
final class KafkaAuth {

    static final String ADMIN = KafkaPrincipals.ADMIN;

    private final KafkaPrincipals principals;

    KafkaAuth(Home home) {
        this.principals = new KafkaPrincipals(home.kafkaCredentials());
    }

    Path dir() {
        return principals.dir();
    }

    String password(String principal) {
        return principals.password(principal);
    }

    /** The environment that makes a process's Kafka clients the principal. */
    Map<String, String> environment(String principal) {
        return Map.of(KafkaClientConfig.ENV, principals.clientConfig(principal).toString());
    }

    /** An admin client of the broker as the operator. */
    Admin admin() {
        return principals.admin(KafkaBroker.BOOTSTRAP);
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
        Map<String, List<String>> gateways = shape.gatewayProcesses().equals("one")
                ? Map.of(gatewayPrincipal(shape.gatewayIds()), shape.gatewayIds())
                : StackAccess.gatewayEach(shape.gatewayIds());
        var grants = StackAccess.of(Topics.DEFAULT, gateways, List.of(Topics.IN_JOB_ECHO_CHANNEL),
                principals.applications());
        try (Admin admin = admin()) {
            principals.grant(admin, grants);
        }
        principals.prepare(grants.keySet());
    }

    /**
     * Issues (or issues again, with a new password) an application's principal for these channels; granted at once on
     * a running stack with Kafka authentication. Returns its client settings file.
     */
    Path issueApplication(String name, List<String> channels, boolean stackRunsWithAuth) {
        checkApplication(name, channels);
        Path client = principals.issueApplication(name, channels);
        if (stackRunsWithAuth) {
            try (Admin admin = admin()) {
                TopicSetup.create(admin, new TopicSetup(Topics.DEFAULT, 1).allTopics(channels, List.of()));
                principals.grant(admin, Map.of(name, KafkaAccess.application(name, Topics.DEFAULT, channels)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Ckc.Failure("interrupted while granting " + name);
            }
        }
        return client;
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
}
