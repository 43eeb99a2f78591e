package io.ckc.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;

/**
 * The name a node gives in its DTLS handshake (the PSK identity): its id, or {@code <fleet>/<id>} for a fleet's node.
 * Frames of the session must name that same node.
 */
public record Identity(String fleet, UUID node) {

    /** A node provisioned on its own. */
    public static Identity of(UUID node) {
        return new Identity(null, node);
    }

    /** A fleet's node; a null fleet is a node of its own. */
    public static Identity of(String fleet, UUID node) {
        return new Identity(fleet, node);
    }

    public String text() {
        return fleet == null ? node.toString() : fleet + "/" + node;
    }

    public byte[] bytes() {
        return text().getBytes(StandardCharsets.UTF_8);
    }

    /** The identity a handshake named, if it is one: a node id, or a fleet name and a node id. */
    public static Optional<Identity> parse(byte[] identity) {
        String text = new String(identity, StandardCharsets.UTF_8);
        int slash = text.lastIndexOf('/');
        try {
            String id = text.substring(slash + 1);
            UUID node = UUID.fromString(id);
            if (!node.toString().equals(id)) {
                return Optional.empty(); // one spelling per node, the one keys are derived from
            }
            // one string per fleet name, not one per node: a gateway keeps each session's identity for its life
            String fleet = slash < 0 ? null : text.substring(0, slash).intern();
            if (fleet != null && fleet.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new Identity(fleet, node));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
