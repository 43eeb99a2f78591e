package io.ckc.cli;

import io.ckc.gateway.mqtt.DeviceCertificates;
import io.ckc.gateway.mqtt.DeviceTopics;
import io.ckc.gateway.mqtt.GatewayKeystore;
import io.ckc.protocol.auth.CredentialStore;
import io.ckc.protocol.auth.Grants;
import io.ckc.protocol.auth.Identity;
import io.ckc.protocol.auth.NodeKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * Provisions nodes in a credential store: a node gets a new secret, printed once for the node to keep, and the store
 * keeps only the key derived from it; a fleet gets a key its nodes' keys derive from.
 */
@Command(name = "credentials", mixinStandardHelpOptions = true,
        description = "Adds a node (node [ID]) or a fleet (fleet NAME) to the credential store the gateways read "
                + "(CKC_CREDENTIALS; .ckc/credentials.json for ./ckc up) and prints its secret once: give it to the "
                + "node (ClientTransport.open(NodeCredentials.of(id, secret))); an MQTT device's username and password "
                + "are printed too. The store keeps derived keys only. tls FILE: a self-signed keystore for the MQTT "
                + "listeners (CKC_TLS_KEYSTORE), password from --password. certificate ID: a client certificate "
                + "for the MQTT device ID (a node the store knows, or with --fleet one of its fleet's), signed by "
                + "the stack's device authority (.ckc/device-ca.p12, which ./ckc up makes and the gateways trust), "
                + "in .ckc/devices/: a PKCS#12 keystore, and the certificate and key in PEM. app NAME --channels a,b: "
                + "an application's Kafka principal on a stack with --kafka-auth (read app.<channel>, write ckc.to-mn, "
                + "ckc.groupcast, ckc.broadcast): its client settings file, for CKC_KAFKA_CLIENT_CONFIG or "
                + "--consumer.config; issuing again replaces its password. kafka --compose: the Kafka principals of "
                + "docker/compose.yaml in docker/secrets/kafka.")
final class CredentialsCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "node|fleet|tls|certificate|app|kafka", description = "What to add")
    String kind;

    @Parameters(index = "1", arity = "0..1", paramLabel = "ID|NAME",
            description = "The node's id (default: a new random one) or the fleet's name")
    String name;

    @Option(names = "--store", description = "The credential store (default .ckc/credentials.json)")
    Path store;

    @Option(names = "--mqtt-client-id", description = "node: the node is the MQTT device with this client id (its "
            + "node id is derived from it)")
    String clientId;

    @Option(names = "--password", description = "tls: the keystore's password; certificate: the device keystore's "
            + "(default: the local stack's)")
    String password;

    @Option(names = "--fleet", description = "certificate: the device is this fleet's member (identity <fleet>/<id>)")
    String fleet;

    @Option(names = "--publish", split = ",", defaultValue = "app.*",
            description = "Channels it may publish to, as Kafka topics, a trailing * for any (default ${DEFAULT-VALUE})")
    List<String> publish;

    @Option(names = "--groupcast", split = ",", defaultValue = "",
            description = "Groups it may groupcast to, <definer>/<group>, a trailing * for any (default: none)")
    List<String> groupcast;

    @Option(names = "--channels", split = ",", description = "app: the channels it reads (topics app.<channel>)")
    List<String> channels = List.of();

    @Option(names = "--kubernetes", description = "app: print its Strimzi KafkaUser (kubectl -n ckc apply -f -) instead "
            + "of issuing it on the local stack")
    boolean kubernetes;

    @Option(names = "--compose", description = "kafka: the principals of docker/compose.yaml's stack (a process per "
            + "gateway gw-1..gw-3, the jobs, the admin) in docker/secrets/kafka, with the brokers' JAAS file")
    boolean compose;

    /** compose.yaml's gateways, a process each. */
    static final List<String> COMPOSE_GATEWAYS = List.of("gw-1", "gw-2", "gw-3");

    @Override
    public Integer call() {
        if (kind.equals("app")) {
            application();
            return 0;
        }
        if (kind.equals("kafka")) {
            kafka();
            return 0;
        }
        Path file = store != null ? store : Home.current().credentials();
        Grants grants = new Grants(publish, groupcast.stream().filter(g -> !g.isBlank()).toList());
        byte[] secret = NodeKeys.newSecret();
        switch (kind) {
            case "node" -> {
                UUID node = clientId != null ? DeviceTopics.nodeId(clientId) : name == null ? UUID.randomUUID() : parse(name);
                byte[] key = NodeKeys.nodeKey(secret, node);
                CredentialStore.putNode(file, node, key, grants);
                System.out.println("node " + node + " added to " + file + "; as an MQTT device (over TLS): username "
                        + node + ", password " + Base64.getEncoder().encodeToString(key));
                System.out.println("its secret, for the SDK (keep it on the node, it is not stored):");
            }
            case "tls" -> {
                if (name == null || password == null) {
                    throw new Ckc.Failure("credentials tls takes the keystore's file and --password");
                }
                try {
                    GatewayKeystore.selfSigned(Path.of(name), password);
                } catch (java.io.IOException e) {
                    throw new Ckc.Failure(e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new Ckc.Failure("interrupted");
                }
                System.out.println("wrote " + name + ": a self-signed certificate for localhost and 127.0.0.1, and "
                        + GatewayKeystore.certificate(Path.of(name)) + " for clients to trust");
                return 0;
            }
            case "certificate" -> {
                certificate(file);
                return 0;
            }
            case "fleet" -> {
                if (name == null) {
                    throw new Ckc.Failure("credentials fleet takes the fleet's name");
                }
                CredentialStore.putFleet(file, name, secret, grants);
                System.out.println("fleet " + name + " added to " + file + "; its key (its nodes' keys derive from it, "
                        + "NodeCredentials.fleet(\"" + name + "\", key)):");
            }
            default -> throw new Ckc.Failure("credentials takes node, fleet, tls, certificate, app or kafka, not " + kind);
        }
        System.out.println(Base64.getEncoder().encodeToString(secret));
        return 0;
    }

    /**
     * The Kafka principals of compose's stack, made before it starts: passwords, each one's client settings, the
     * brokers' JAAS file; compose's {@code kafka-access} service gives them to the cluster (GrantKafkaAccess). Made
     * again, the passwords stay.
     */
    private void kafka() {
        if (!compose) {
            throw new Ckc.Failure("credentials kafka takes --compose (./ckc up --kafka-auth makes the local stack's)");
        }
        Path dir = Home.current().root.resolve("docker/secrets/kafka");
        var principals = new io.ckc.protocol.kafka.KafkaPrincipals(dir);
        var grants = io.ckc.jobs.StackAccess.of(io.ckc.protocol.kafka.Topics.DEFAULT,
                io.ckc.jobs.StackAccess.gatewayEach(COMPOSE_GATEWAYS), List.of(), principals.applications());
        principals.prepare(grants.keySet());
        System.out.println("wrote " + dir + ": " + grants.size() + " principals and the admin (owner-only), and "
                + "broker-jaas.conf; docker compose gives them to Kafka (service kafka-access)");
    }

    /**
     * An application's Kafka principal: granted at once when the stack runs with Kafka authentication, else at its next
     * {@code ./ckc up --kafka-auth}.
     */
    private void application() {
        if (name == null || channels.isEmpty()) {
            throw new Ckc.Failure("credentials app takes the application's name and --channels a,b");
        }
        if (kubernetes) {
            KafkaAuth.checkApplication(name, channels);
            try {
                System.out.print(io.ckc.deploy.Manifests.applicationUser(name, channels));
            } catch (java.io.IOException e) {
                throw new Ckc.Failure(e.getMessage());
            }
            return;
        }
        Home home = Home.current();
        boolean running = new Stack(home).running().map(StackShape::kafkaAuth).orElse(false);
        Path client = new KafkaAuth(home).issueApplication(name, channels, running);
        System.out.println("application " + name + " may read " + String.join(", ", channels.stream()
                .map(c -> "app." + c).toList()) + " and write ckc.to-mn, ckc.groupcast and ckc.broadcast"
                + (running ? "" : " once the stack runs with ./ckc up --kafka-auth") + ".");
        System.out.println("its Kafka client settings (owner-only; a new password each time it is issued): " + client);
        System.out.println("use them with CKC_KAFKA_CLIENT_CONFIG=" + client + ", or kafka-console-consumer "
                + "--consumer.config " + client + "; its consumer groups start with '" + name + "'");
    }

    /**
     * A client certificate for an MQTT device: its subject names the identity the store knows, so the device logs in
     * with it and no password.
     */
    private void certificate(Path file) {
        if (name == null && clientId == null) {
            throw new Ckc.Failure("credentials certificate takes the node's id, or --mqtt-client-id");
        }
        UUID node = clientId != null ? DeviceTopics.nodeId(clientId) : parse(name);
        Identity identity = fleet != null ? Identity.of(fleet, node) : Identity.of(node);
        if (CredentialStore.open(file).lookup(identity).isEmpty()) {
            throw new Ckc.Failure(file + " does not know " + identity.text() + ": add it first (credentials node "
                    + node + ", or credentials fleet NAME for --fleet)");
        }
        Home home = Home.current();
        Path authority = home.deviceAuthority();
        if (!java.nio.file.Files.exists(authority)) {
            throw new Ckc.Failure("no device authority at " + authority + ": ./ckc up makes it");
        }
        String device = clientId != null ? clientId : node.toString();
        Path keystore = home.devices().resolve(device + ".p12");
        String keystorePassword = password != null ? password : Stack.LOCAL_KEYSTORE_PASSWORD;
        try {
            DeviceCertificates.issue(authority, Stack.LOCAL_KEYSTORE_PASSWORD, identity.text(), keystore,
                    keystorePassword);
        } catch (java.io.IOException e) {
            throw new Ckc.Failure(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Ckc.Failure("interrupted");
        }
        Path certificate = GatewayKeystore.certificate(keystore);
        Path key = DeviceCertificates.privateKey(keystore);
        System.out.println("wrote " + keystore + " (PKCS#12), " + certificate + " and " + key + ": a certificate for "
                + identity.text() + ", signed by " + authority + "; log in with it and no password, e.g.");
        System.out.println("  mosquitto_pub -p " + StackShape.FIRST_MQTT_PORT + " --cafile " + GatewayKeystore.certificate(home.gatewayKeystore())
                + " --cert " + certificate + " --key " + key + " -i " + device + " -t app/echo -m hello");
    }

    private static UUID parse(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new Ckc.Failure("a node id is a UUID, not " + id);
        }
    }
}
