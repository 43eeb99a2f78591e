package io.ckc.protocol.auth;

import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.HKDFParameters;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.UUID;

/**
 * A node's pre-shared key, derived with HKDF-SHA256 (RFC 5869), never chosen by hand: from the node's own secret,
 * which the operator gives the node and which no store keeps, or, for a fleet (the simulator's nodes, a batch
 * provisioned together), from the fleet's key and the node's id. The key is what the DTLS handshake proves.
 */
public final class NodeKeys {

    public static final int KEY_BYTES = 32;
    private static final byte[] NODE_SALT = "ckc node psk v1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FLEET_SALT = "ckc fleet psk v1".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private NodeKeys() {
    }

    /** A new random secret, for a node or a fleet. */
    public static byte[] newSecret() {
        byte[] secret = new byte[KEY_BYTES];
        RANDOM.nextBytes(secret);
        return secret;
    }

    /** The key of a node provisioned on its own, from its secret. */
    public static byte[] nodeKey(byte[] nodeSecret, UUID node) {
        return hkdf(nodeSecret, NODE_SALT, node.toString());
    }

    /** The key of a fleet's node, from the fleet's key. */
    public static byte[] fleetNodeKey(byte[] fleetKey, String fleet, UUID node) {
        return hkdf(fleetKey, FLEET_SALT, Identity.of(fleet, node).text());
    }

    private static byte[] hkdf(byte[] secret, byte[] salt, String info) {
        HKDFBytesGenerator hkdf = new HKDFBytesGenerator(new SHA256Digest());
        hkdf.init(new HKDFParameters(secret, salt, info.getBytes(StandardCharsets.UTF_8)));
        byte[] key = new byte[KEY_BYTES];
        hkdf.generateBytes(key, 0, key.length);
        return key;
    }
}
