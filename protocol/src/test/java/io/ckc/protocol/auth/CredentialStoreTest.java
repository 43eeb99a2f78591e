package io.ckc.protocol.auth;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CredentialStoreTest {

    private static final UUID NODE = UUID.fromString("00000000-0000-0000-0000-00000000000a");

    @Test
    void nodesAndFleetsAreFoundWithTheirKeysAndGrantsAndNoSecretIsStored(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("credentials.json");
        byte[] secret = "the node's own secret, 32 bytes!".getBytes(StandardCharsets.UTF_8);
        CredentialStore.putNode(file, NODE, NodeKeys.nodeKey(secret, NODE), new Grants(List.of("app.echo"), List.of()));
        byte[] fleetKey = NodeKeys.newSecret();
        CredentialStore.putFleet(file, "sim", fleetKey, new Grants(List.of("app.*"), List.of("*")));

        CredentialStore store = CredentialStore.open(file);
        assertThat(store.lookup(Identity.of(NODE))).hasValueSatisfying(c -> {
            assertThat(c.key()).isEqualTo(NodeKeys.nodeKey(secret, NODE));
            assertThat(c.grants().mayPublish("echo")).isTrue();
            assertThat(c.grants().mayPublish("other")).isFalse();
            assertThat(c.grants().mayGroupcast("grid/a")).isFalse();
            assertThat(c.toString()).doesNotContain(java.util.Base64.getEncoder().encodeToString(c.key()));
        });
        UUID member = UUID.randomUUID();
        assertThat(store.lookup(Identity.of("sim", member))).hasValueSatisfying(c -> {
            assertThat(c.key()).isEqualTo(NodeKeys.fleetNodeKey(fleetKey, "sim", member));
            assertThat(c.grants().mayGroupcast("grid/a")).isTrue();
        });
        assertThat(store.lookup(Identity.of("sim", UUID.randomUUID())).orElseThrow().grants())
                .as("a fleet's nodes share one Grants").isSameAs(store.lookup(Identity.of("sim", member)).orElseThrow().grants());
        assertThat(store.lookup(Identity.of(member))).isEmpty();
        assertThat(store.lookup(Identity.of("other", member))).isEmpty();
        assertThat(store.fleetKey("sim")).hasValue(fleetKey);
        assertThat(Files.readString(file)).doesNotContain(java.util.Base64.getEncoder().encodeToString(secret));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void aNodeWithoutGrantsGetsTheDefaultsAndABrokenFileNamesItself(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("credentials.json");
        Files.writeString(file, "{\"nodes\": [{\"node\": \"" + NODE + "\", \"key\": \""
                + java.util.Base64.getEncoder().encodeToString(NodeKeys.newSecret()) + "\"}]}");
        assertThat(CredentialStore.open(file).lookup(Identity.of(NODE)).orElseThrow().grants()).isEqualTo(Grants.DEFAULT);
        Files.writeString(file, "{\"nodes\": [{\"node\": \"" + NODE + "\"}]}");
        assertThatThrownBy(() -> CredentialStore.open(file)).hasMessageContaining(file.toString());
        assertThatThrownBy(() -> CredentialStore.open(dir.resolve("missing.json"))).hasMessageContaining("missing.json");
    }

    @Test
    void grantPatternsAreNamesOrPrefixes() {
        Grants grants = new Grants(List.of("app.sensors.*", "app.status"), List.of("grid/*"));
        assertThat(grants.mayPublish("sensors.t1")).isTrue();
        assertThat(grants.mayPublish("status")).isTrue();
        assertThat(grants.mayPublish("statusx")).isFalse();
        assertThat(grants.mayPublish("echo")).isFalse();
        assertThat(grants.mayGroupcast("grid/cell-1")).isTrue();
        assertThat(grants.mayGroupcast("app/all")).isFalse();
        assertThat(Grants.DEFAULT.mayPublish("anything")).isTrue();
        assertThat(Grants.DEFAULT.mayGroupcast("grid/cell-1")).isFalse();
    }
}
