package io.ckc.gateway.core;

import io.ckc.protocol.auth.CredentialStore;
import io.ckc.protocol.auth.Grants;
import io.ckc.protocol.auth.Identity;
import io.ckc.protocol.auth.NodeKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class NodeAuthenticatorTest {

    @Test
    void anMqttPasswordIsTheNodesKeyAndNothingElse(@TempDir Path dir) {
        Path file = dir.resolve("credentials.json");
        UUID node = UUID.randomUUID();
        byte[] key = NodeKeys.nodeKey(NodeKeys.newSecret(), node);
        CredentialStore.putNode(file, node, key, new Grants(List.of("app.echo"), List.of()));
        byte[] fleetKey = NodeKeys.newSecret();
        CredentialStore.putFleet(file, "sim", fleetKey, Grants.DEFAULT);
        NodeAuthenticator authenticator = new NodeAuthenticator(CredentialStore.open(file));

        assertThat(authenticator.password(node.toString(), base64(key))).hasValue(Identity.of(node));
        assertThat(authenticator.grants(Identity.of(node)).mayPublish("other")).isFalse();
        UUID member = UUID.randomUUID();
        assertThat(authenticator.password("sim/" + member, base64(NodeKeys.fleetNodeKey(fleetKey, "sim", member))))
                .hasValue(Identity.of("sim", member));

        assertThat(authenticator.password(node.toString(), base64(NodeKeys.newSecret()))).isEmpty();
        assertThat(authenticator.password(UUID.randomUUID().toString(), base64(key))).as("another node").isEmpty();
        assertThat(authenticator.password("sim/" + member, base64(key))).isEmpty();
        assertThat(authenticator.password(node.toString(), "not base64!".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(authenticator.password(null, base64(key))).isEmpty();
        assertThat(authenticator.password(node.toString(), null)).isEmpty();
        assertThat(authenticator.grants(Identity.of(UUID.randomUUID()))).as("unknown: the defaults").isEqualTo(Grants.DEFAULT);
    }

    @Test
    void aKeyIssuedAgainWhileTheGatewayRunsIsGoodAtOnceAndTheOldOneNoLonger(@TempDir Path dir) {
        Path file = dir.resolve("credentials.json");
        UUID node = UUID.randomUUID();
        byte[] old = NodeKeys.nodeKey(NodeKeys.newSecret(), node);
        CredentialStore.putNode(file, node, old, Grants.DEFAULT);
        NodeAuthenticator authenticator = new NodeAuthenticator(CredentialStore.open(file));
        assertThat(authenticator.password(node.toString(), base64(old))).as("the store just checked").isPresent();

        byte[] renewed = NodeKeys.nodeKey(NodeKeys.newSecret(), node);
        CredentialStore.putNode(file, node, renewed, Grants.DEFAULT); // ./ckc credentials node again, within the second
        assertThat(authenticator.password(node.toString(), base64(renewed))).as("the new key, at once").isPresent();
        assertThat(authenticator.password(node.toString(), base64(old))).as("the old key").isEmpty();

        UUID added = UUID.randomUUID();
        byte[] addedKey = NodeKeys.nodeKey(NodeKeys.newSecret(), added);
        CredentialStore.putNode(file, added, addedKey, Grants.DEFAULT);
        assertThat(authenticator.password(added.toString(), base64(addedKey))).as("a node added now").isPresent();
    }

    private static byte[] base64(byte[] key) {
        return Base64.getEncoder().encode(key);
    }
}
