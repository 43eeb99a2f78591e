package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** How the nodes of a killed gateway are timed back: only they count, each until its own new session. */
class NodesBackTest {

    /** Three UDP nodes: 0 and 1 on gw-2, 2 on gw-1; when each last lost a session and last opened one. */
    private static final class ThreeNodes implements LoadPath {
        final AtomicLongArray lost = new AtomicLongArray(new long[] {Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE});
        final AtomicLongArray opened = new AtomicLongArray(new long[] {Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE});

        @Override
        public int[] nodesOn(String gatewayId) {
            return gatewayId.equals("gw-2") ? new int[] {0, 1} : new int[] {2};
        }

        @Override
        public long[] sessionLostAndOpenedNanos(int node) {
            return new long[] {lost.get(node), opened.get(node)};
        }

        @Override
        public int connected() {
            int connected = 0;
            for (int node = 0; node < 3; node++) {
                connected += opened.get(node) - lost.get(node) > 0 ? 1 : 0;
            }
            return connected;
        }

        final RoundTrips trips = new RoundTrips(3);

        @Override
        public RoundTrips trips() {
            return trips;
        }

        @Override
        public void send(int node, int seq) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long shed() {
            return 0;
        }

        @Override
        public long droppedSessions() {
            return 0;
        }

        @Override
        public String droppedSessionCauses() {
            return "";
        }

        @Override
        public void close() {
        }
    }

    private static long at(long origin, long ms) {
        return origin + TimeUnit.MILLISECONDS.toNanos(ms);
    }

    @Test
    void theKilledGatewaysNodesAreTimedUntilEachHasANewSessionAndNoOtherNodeCounts() throws Exception {
        ThreeNodes fleet = new ThreeNodes();
        long origin = System.nanoTime();
        for (int node = 0; node < 3; node++) {
            fleet.opened.set(node, origin - 1); // all connected before the kill
        }
        FaultsCommand.NodesBack back = FaultsCommand.NodesBack.watch(fleet, 3, "gw-2");
        long lag = (System.nanoTime() - origin) / 1_000_000; // the watch began this much after the origin, in ms
        // node 0 back at once: the count of connected nodes is whole again while node 1 has not noticed yet
        fleet.lost.set(0, at(origin, 100));
        fleet.opened.set(0, at(origin, 300));
        // node 2, on another gateway, loses its session later for another reason
        fleet.lost.set(2, at(origin, 2_000));
        fleet.opened.set(2, at(origin, 2_100));
        fleet.trips.arrived(0, 0, 500_000); // sent half a second before now, after the kill: the kill's
        fleet.trips.arrived(2, 0, 500_000); // another gateway's node: not the kill's
        FaultsCommand.NodesBack.Result notYet = back.await(1);
        assertThat(notYet.allMs()).as("node 1 still has the dead gateway's session").isNull();

        fleet.lost.set(1, at(origin, 200));
        fleet.opened.set(1, at(origin, 900));
        assertThat(back.await(10).allMs()).as("the struck nodes back").isNotNull();
        fleet.lost.set(0, at(origin, 20_000)); // node 0 loses its new session later: not the kill's doing
        fleet.trips.arrived(1, 0, 0); // sent after all were back: not the kill's
        FaultsCommand.NodesBack.Result result = back.await(10);
        assertThat(result.struckNodes()).isEqualTo(2);
        assertThat(result.allMs()).isCloseTo(900.0, within(lag + 1.0));
        assertThat(result.halfMs()).isCloseTo(300.0, within(lag + 1.0));
        assertThat(result.gaveUpMaxMs()).as("node 2's loss is not the kill's").isCloseTo(200.0, within(lag + 1.0));
        assertThat(result.reconnectP50Ms()).isCloseTo(200.0, within(0.001));
        assertThat(result.reconnectMaxMs()).isCloseTo(700.0, within(0.001));
        assertThat(result.trips().histogram().getTotalCount()).as("the struck nodes' messages sent until all were back")
                .isEqualTo(1);
        assertThat(result.trips().histogram().getMaxValue()).isCloseTo(500_000L, within(500L));
    }
}
