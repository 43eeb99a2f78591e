package io.ckc.gateway.udp;

import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.protocol.auth.Grants;
import io.ckc.protocol.auth.Identity;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class DtlsSessionsTest {

    private final DtlsSessions sessions = new DtlsSessions(null, new GatewayMetrics("gw-t", new PrometheusRegistry()),
            null, 60_000, 1, 1);

    @AfterEach
    void close() {
        sessions.close();
    }

    @Test
    void aNodesRightsNameItByTheIdItsHandshakeAuthenticatedAndGrantWhatItsCredentialDoes() {
        UUID node = UUID.randomUUID();
        Grants grants = new Grants(List.of("app.echo"), List.of());
        DtlsSessions.Peer peer = sessions.newPeer(new InetSocketAddress("127.0.0.1", 40_000), null);
        peer.identity = Identity.of("fleet", node);
        peer.grants = grants;
        sessions.byNode.put(node, peer);

        UUID asTheConnectFrameSaysIt = UUID.fromString(node.toString());
        UdpShard.NodeRights rights = sessions.rights(asTheConnectFrameSaysIt);

        assertThat(rights.node()).as("the session keeps the identity's id, not a second copy").isSameAs(node);
        assertThat(rights.grants()).isSameAs(grants);
        UUID stranger = UUID.randomUUID();
        assertThat(sessions.rights(stranger)).isEqualTo(new UdpShard.NodeRights(stranger, Grants.DEFAULT));
    }
}
