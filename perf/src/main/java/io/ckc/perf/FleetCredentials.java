package io.ckc.perf;

import io.ckc.client.NodeCredentials;
import io.ckc.protocol.auth.CredentialStore;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Base64;
import java.util.UUID;
import javax.net.ssl.TrustManagerFactory;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

/**
 * The keys the simulator's nodes prove, when the gateways authenticate: those of one fleet of the credential store
 * ({@code CKC_CREDENTIALS}, the file the gateways read, and {@code CKC_FLEET}, which {@code ./ckc} sets for a stack
 * that authenticates). Neither set: the nodes speak to insecure gateways.
 */
final class FleetCredentials {

    private static volatile NodeCredentials current = fromEnvironment();
    private static final MqttLogin MQTT = current == null ? null : new MqttLogin(tlsFromEnvironment(), current);

    /**
     * How the simulator's MQTT devices log in where the gateways authenticate: TLS trusting the gateways' certificate
     * ({@code CKC_TLS_KEYSTORE}), username {@code <fleet>/<node id>}, password the node's key in base64.
     */
    record MqttLogin(SslContext tls, NodeCredentials credentials) {
        String username(UUID node) {
            return credentials.key(node).orElseThrow().identity().text();
        }

        byte[] password(UUID node) {
            return Base64.getEncoder().encode(credentials.key(node).orElseThrow().key());
        }
    }

    /** The MQTT devices' login, or null when the gateways do not authenticate. */
    static MqttLogin mqtt() {
        return MQTT;
    }

    private static SslContext tlsFromEnvironment() {
        String keystore = System.getenv("CKC_TLS_KEYSTORE");
        if (keystore == null || keystore.isBlank()) {
            throw new IllegalArgumentException("CKC_TLS_KEYSTORE names the gateways' certificate, which the "
                    + "simulator's MQTT devices trust");
        }
        String password = System.getenv().getOrDefault("CKC_TLS_KEYSTORE_PASSWORD", "");
        try (InputStream in = Files.newInputStream(Path.of(keystore))) {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(in, password.toCharArray());
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            return SslContextBuilder.forClient().trustManager(trust).build();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read " + keystore + ": " + e.getMessage(), e);
        }
    }

    private FleetCredentials() {
    }

    /** The fleet's keys, or null when the gateways do not authenticate. */
    static NodeCredentials current() {
        return current;
    }

    /**
     * For a simulator inside a test's JVM, whose environment names no store: its UDP nodes prove these keys (null: the
     * gateways do not authenticate) until the returned handle is closed.
     */
    static AutoCloseable use(NodeCredentials credentials) {
        NodeCredentials before = current;
        current = credentials;
        return () -> current = before;
    }

    private static NodeCredentials fromEnvironment() {
        String store = System.getenv("CKC_CREDENTIALS");
        if (store == null || store.isBlank()) {
            return null;
        }
        String fleet = System.getenv().getOrDefault("CKC_FLEET", "sim");
        byte[] key = CredentialStore.open(Path.of(store)).fleetKey(fleet).orElseThrow(() ->
                new IllegalArgumentException("the credential store " + store + " has no fleet '" + fleet + "'"));
        return NodeCredentials.fleet(fleet, key);
    }
}
