package io.ckc.gateway.core;

import io.ckc.protocol.auth.CredentialStore;
import io.ckc.protocol.auth.Grants;
import io.ckc.protocol.auth.Identity;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Who may open a session as a node, for every adapter: the credential store, read by the core, asked in the adapter's
 * own terms. A DTLS handshake asks for the node's key (the handshake proves the node holds it); an MQTT CONNECT
 * gives its identity as username and its key, base64, as password, or comes over TLS with a client certificate that
 * names it. Both get the node's {@link Grants} from here.
 */
public final class NodeAuthenticator {

    private final CredentialStore store;

    NodeAuthenticator(CredentialStore store) {
        this.store = store;
    }

    /** The authenticator of these options: empty in the insecure mode. */
    static Optional<NodeAuthenticator> of(SecurityOptions security) {
        return security.insecure() ? Optional.empty()
                : Optional.of(new NodeAuthenticator(CredentialStore.open(Path.of(security.credentials()))));
    }

    /** The key a node must prove, if the store knows it. */
    public Optional<byte[]> key(Identity identity) {
        return store.lookup(identity).map(CredentialStore.Credential::key);
    }

    /** What the node may do; the defaults for a node the store no longer knows. */
    public Grants grants(Identity identity) {
        return store.lookup(identity).map(CredentialStore.Credential::grants).orElse(Grants.DEFAULT);
    }

    /**
     * The identity a client certificate names, which TLS verified against the authorities the gateway trusts: its
     * subject's common name, {@code <node id>} or {@code <fleet>/<node id>}, if the store knows that identity (a node
     * removed from the store is refused whatever certificate it holds).
     */
    public Optional<Identity> certificate(X509Certificate certificate) {
        try {
            for (Rdn part : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
                if (part.getType().equalsIgnoreCase("CN")) {
                    return Identity.parse(part.getValue().toString().getBytes(StandardCharsets.UTF_8))
                            .filter(identity -> onFreshStoreIfNot(() -> store.lookup(identity)).isPresent());
                }
            }
        } catch (InvalidNameException e) {
            // no name to go by
        }
        return Optional.empty();
    }

    /**
     * What {@code check} finds, asked again on the store read afresh if it found nothing: a key or node issued since
     * the store's last check is good at once, not a second later.
     */
    private <T> Optional<T> onFreshStoreIfNot(Supplier<Optional<T>> check) {
        Optional<T> found = check.get();
        if (found.isPresent()) {
            return found;
        }
        store.refresh();
        return check.get();
    }

    /**
     * The identity a username and password prove: the username names it ({@code <node id>} or {@code <fleet>/<node
     * id>}), the password is its key in base64. Compared in constant time.
     */
    public Optional<Identity> password(String username, byte[] password) {
        return onFreshStoreIfNot(() -> checkPassword(username, password));
    }

    private Optional<Identity> checkPassword(String username, byte[] password) {
        if (username == null || password == null) {
            return Optional.empty();
        }
        Optional<Identity> identity = Identity.parse(username.getBytes(StandardCharsets.UTF_8));
        Optional<byte[]> key = identity.flatMap(this::key);
        if (key.isEmpty()) {
            return Optional.empty();
        }
        byte[] given;
        try {
            given = Base64.getDecoder().decode(new String(password, StandardCharsets.UTF_8).trim());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return MessageDigest.isEqual(given, key.get()) ? identity : Optional.empty();
    }
}
