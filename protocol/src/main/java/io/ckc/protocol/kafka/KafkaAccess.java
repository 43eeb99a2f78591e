package io.ckc.protocol.kafka;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.acl.AccessControlEntryFilter;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Who may do what on CKC's Kafka, declared once: a principal per component with only the grants it needs, as Kafka
 * ACLs (StandardAuthorizer) for SCRAM-SHA-512 users. Whoever writes {@code ckc.to-mn} reaches every device, so
 * applications get that and their own channels, and nothing of the core; a gateway reads only its own delivery topic.
 * {@code ./ckc up --kafka-auth} grants these on the local broker; Strimzi's {@code KafkaUser}s on Kubernetes say the
 * same.
 *
 * <p>Prefixed grants where the names are open-ended: the delivery job and the PoA manager write every gateway's topic
 * ({@code ckc.gw.}), so a gateway added later needs no new grant; an application's consumer groups start with its
 * name.
 */
public final class KafkaAccess {

    /** The SASL mechanism of every CKC principal. */
    public static final String MECHANISM = "SCRAM-SHA-512";
    private static final int SCRAM_ITERATIONS = 8192;
    private static final String PLAIN_LOGIN = "org.apache.kafka.common.security.plain.PlainLoginModule";

    /** The principals of the core, by component; an application's principal is its own name. */
    public static final String DELIVERY = "ckc-delivery";
    public static final String POA_MANAGER = "ckc-poa-manager";
    public static final String ECHO = "ckc-echo";
    public static final String GROUP_DEFINERS = "ckc-group-definers";
    public static final String RULES = "ckc-rules";
    /** The principal of a process that hosts several gateways (the local stack's one JVM). */
    public static final String GATEWAYS = "ckc-gateways";

    private KafkaAccess() {
    }

    /** The principal of one gateway: {@code ckc-gateway-<id>}. */
    public static String gatewayPrincipal(String gatewayId) {
        return "ckc-gateway-" + gatewayId;
    }

    /**
     * Gateways (of one process): write the node-side topics and every application channel (a node may address any;
     * its own grants decide, see docs/security.md), create and read their own delivery topics, read the gateway list
     * and broadcasts.
     */
    public static List<AclBinding> gateways(String principal, Topics topics, List<String> gatewayIds) {
        Grants grants = new Grants(principal);
        grants.topicPrefix(topics.app(""), AclOperation.WRITE);
        for (String topic : List.of(topics.context(), topics.groupcast(), topics.mnEvents(), topics.unsent(),
                topics.delivered(), topics.deadLetter(), topics.gatewayHello(), topics.gatewayLoad(),
                topics.gatewayConnections())) {
            grants.topic(topic, AclOperation.WRITE);
        }
        for (String id : gatewayIds) {
            grants.topic(topics.gateway(id), AclOperation.CREATE);
            grants.topic(topics.gateway(id), AclOperation.READ);
            grants.group("ckc-gateway-" + id, AclOperation.READ);
        }
        grants.topic(topics.gatewayList(), AclOperation.READ);
        grants.topic(topics.broadcast(), AclOperation.READ);
        return grants.all();
    }

    /** The delivery job: what routes unicasts and groupcasts, and the channels it answers itself. */
    public static List<AclBinding> delivery(Topics topics, List<String> ownChannels) {
        Grants grants = new Grants(DELIVERY);
        for (String topic : List.of(topics.mnEvents(), topics.unsent(), topics.delivered(), topics.toMn(),
                topics.groups(), topics.groupcast())) {
            grants.topic(topic, AclOperation.READ);
        }
        ownChannels.forEach(channel -> grants.topic(topics.app(channel), AclOperation.READ));
        grants.group(DELIVERY, AclOperation.READ);
        grants.topicPrefix(topics.gateway(""), AclOperation.WRITE);
        grants.topic(topics.receipts(), AclOperation.WRITE);
        grants.topic(topics.deadLetter(), AclOperation.WRITE);
        return grants.all();
    }

    /** The PoA manager: gateways' reports in; statistics, the gateway list, rounds, orders and lost sessions out. */
    public static List<AclBinding> poaManager(Topics topics) {
        Grants grants = new Grants(POA_MANAGER);
        for (String topic : List.of(topics.gatewayHello(), topics.gatewayLoad(), topics.gatewayConnections(),
                topics.poaControl())) {
            grants.topic(topic, AclOperation.READ);
        }
        grants.group(POA_MANAGER, AclOperation.READ);
        grants.topicPrefix(topics.gateway(""), AclOperation.WRITE);
        for (String topic : List.of(topics.mnEvents(), topics.deadLetter())) {
            grants.topic(topic, AclOperation.WRITE);
        }
        return grants.all();
    }

    /**
     * Group definers, the Java ones ({@code ckc-group-definer-*}) or the SQL rules' ({@code ckc-sql-*}): context in,
     * memberships out.
     */
    public static List<AclBinding> groupDefiners(String principal, String consumerGroupPrefix, Topics topics) {
        Grants grants = new Grants(principal);
        grants.topic(topics.context(), AclOperation.READ);
        grants.groupPrefix(consumerGroupPrefix, AclOperation.READ);
        grants.topic(topics.groups(), AclOperation.WRITE);
        grants.topic(topics.deadLetter(), AclOperation.WRITE);
        return grants.all();
    }

    /**
     * An application: reads its channels (consumer groups named after it) and the receipts, writes unicasts,
     * groupcasts and broadcasts to nodes, and dead letters.
     */
    public static List<AclBinding> application(String principal, Topics topics, List<String> channels) {
        Grants grants = new Grants(principal);
        channels.forEach(channel -> grants.topic(topics.app(channel), AclOperation.READ));
        grants.topic(topics.receipts(), AclOperation.READ);
        grants.groupPrefix(principal, AclOperation.READ);
        for (String topic : List.of(topics.toMn(), topics.groupcast(), topics.broadcast(), topics.deadLetter())) {
            grants.topic(topic, AclOperation.WRITE);
        }
        return grants.all();
    }

    /** A client's security properties for {@code user}: SASL/SCRAM-SHA-512 over plaintext, for loopback only. */
    public static Properties clientProperties(String user, String password) {
        Properties props = new Properties();
        props.setProperty(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        props.setProperty(SaslConfigs.SASL_MECHANISM, MECHANISM);
        props.setProperty(SaslConfigs.SASL_JAAS_CONFIG, jaas("org.apache.kafka.common.security.scram.ScramLoginModule",
                user, password));
        return props;
    }

    /**
     * The brokers' own user's client settings: SASL/PLAIN, checked against the brokers' JAAS configuration, so that it
     * exists before any SCRAM user does (a broker's first start makes none) and can make them.
     */
    public static Properties adminProperties(String user, String password) {
        Properties props = new Properties();
        props.setProperty(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        props.setProperty(SaslConfigs.SASL_MECHANISM, "PLAIN");
        props.setProperty(SaslConfigs.SASL_JAAS_CONFIG, jaas(PLAIN_LOGIN, user, password));
        return props;
    }

    /**
     * The JAAS login a broker listener takes for its own user with PLAIN: it logs in as {@code user} and accepts that
     * user with the same password (and no other: every client but the brokers' own logs in with SCRAM).
     */
    public static String brokerPlainJaas(String user, String password) {
        return jaas(PLAIN_LOGIN, user, password, " user_" + user + "=\"" + password + "\"");
    }

    /** A JAAS line of {@code module} for {@code user}. */
    public static String jaas(String module, String user, String password) {
        return jaas(module, user, password, "");
    }

    private static String jaas(String module, String user, String password, String more) {
        if (user.contains("\"") || password.contains("\"")) {
            throw new IllegalArgumentException("a Kafka user or password with a double quote");
        }
        return module + " required username=\"" + user + "\" password=\"" + password + "\"" + more + ";";
    }

    /**
     * Makes {@code user} a SCRAM user with {@code password} (replacing an earlier one) and gives it exactly
     * {@code grants}: whatever else it was granted before is taken back.
     */
    public static void grant(Admin admin, String user, String password, List<AclBinding> grants) {
        try {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS), password)))
                    .all().get(30, TimeUnit.SECONDS);
            admin.deleteAcls(List.of(new AclBindingFilter(ResourcePatternFilter.ANY, new AccessControlEntryFilter(
                    principalOf(user), null, AclOperation.ANY, AclPermissionType.ANY)))).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(grants).all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while granting Kafka access to " + user, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot grant Kafka access to " + user + ": " + e.getMessage(), e);
        }
    }

    static String principalOf(String user) {
        return "User:" + user;
    }

    /** Allow-grants of one principal from any host, collected in the order given. */
    private static final class Grants {
        private final String principal;
        private final List<AclBinding> bindings = new ArrayList<>();

        Grants(String user) {
            if (user == null || user.isBlank()) {
                throw new IllegalArgumentException("a Kafka principal needs a name");
            }
            this.principal = principalOf(user);
        }

        void topic(String name, AclOperation operation) {
            add(ResourceType.TOPIC, name, PatternType.LITERAL, operation);
        }

        void topicPrefix(String prefix, AclOperation operation) {
            add(ResourceType.TOPIC, prefix, PatternType.PREFIXED, operation);
        }

        void group(String name, AclOperation operation) {
            add(ResourceType.GROUP, name, PatternType.LITERAL, operation);
        }

        void groupPrefix(String prefix, AclOperation operation) {
            add(ResourceType.GROUP, prefix, PatternType.PREFIXED, operation);
        }

        private void add(ResourceType type, String name, PatternType pattern, AclOperation operation) {
            bindings.add(new AclBinding(new ResourcePattern(type, name, pattern),
                    new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW)));
        }

        List<AclBinding> all() {
            return List.copyOf(bindings);
        }
    }
}
