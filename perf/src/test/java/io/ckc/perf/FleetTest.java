package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the fleet tells about its nodes when some have no session. */
class FleetTest {

    @Test
    void theNodesWithoutASessionAreListedWithTheirSocketStateAndGateway() throws Exception {
        InetSocketAddress first = new InetSocketAddress("127.0.0.1", 9);
        InetSocketAddress second = new InetSocketAddress("127.0.0.1", 7);
        try (Fleet fleet = new Fleet(3, List.of(first, second), 1)) {
            assertThat(fleet.notConnected(2))
                    .isEqualTo("3 (first 2: 0@s0 DISCONNECTED 127.0.0.1:9 never_connected, "
                            + "1@s1 DISCONNECTED 127.0.0.1:7 never_connected)");
            assertThat(fleet.notConnected(5)).startsWith("3 (0@s0 ").endsWith(", 2@s0 DISCONNECTED 127.0.0.1:9 never_connected)");
        }
    }
}
