package io.ckc.client;

import io.ckc.protocol.auth.Identity;
import io.ckc.protocol.auth.NodeKeys;

import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The keys a transport's nodes prove in their DTLS handshakes: a node's own (from the secret the operator gave it), or
 * those of a fleet's nodes, derived from the fleet's key. A node without a key cannot connect to a gateway that
 * authenticates.
 */
@FunctionalInterface
public interface NodeCredentials {

    /** The node's identity and key, if this holds one. */
    Optional<Key> key(UUID node);

    /** What a node proves. */
    record Key(Identity identity, byte[] key) {
        @Override
        public String toString() {
            return "Key[" + identity.text() + "]";
        }
    }

    /** One node, with the secret the operator provisioned it with. */
    static NodeCredentials of(UUID node, byte[] secret) {
        Key key = new Key(Identity.of(node), NodeKeys.nodeKey(secret, node));
        return id -> id.equals(node) ? Optional.of(key) : Optional.empty();
    }

    /** Several nodes, each with its secret. */
    static NodeCredentials of(Map<UUID, byte[]> secrets) {
        Map<UUID, byte[]> copy = Map.copyOf(secrets);
        return id -> Optional.ofNullable(copy.get(id)).map(s -> new Key(Identity.of(id), NodeKeys.nodeKey(s, id)));
    }

    /** Every node of a fleet: keys derived from the fleet's key. */
    static NodeCredentials fleet(String fleet, byte[] fleetKey) {
        byte[] copy = fleetKey.clone();
        return id -> Optional.of(new Key(Identity.of(fleet, id), NodeKeys.fleetNodeKey(copy, fleet, id)));
    }
}
