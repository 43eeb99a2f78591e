package io.ckc.perf;

import io.ckc.client.NodeCredentials;
import io.ckc.protocol.dtls.CredentialStore;

import java.nio.file.Path;

/**
 * The keys the simulator's nodes prove, when the gateways authenticate: those of one fleet of the credential store
 * ({@code CKC_CREDENTIALS}, the file the gateways read, and {@code CKC_FLEET}, which {@code ./ckc} sets for a stack
 * that authenticates). Neither set: the nodes speak to insecure gateways.
 */
final class FleetCredentials {

    private static final NodeCredentials CURRENT = fromEnvironment();

    private FleetCredentials() {
    }

    /** The fleet's keys, or null when the gateways do not authenticate. */
    static NodeCredentials current() {
        return CURRENT;
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
