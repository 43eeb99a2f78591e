package io.ckc.client;

import io.ckc.protocol.frame.GatewayAddress;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The node's connection policies, each on its own: duplicates, where to fail over to, when to try again. */
class ConnectionPolicyTest {

    @Test
    void aRepeatedMessageIdIsDroppedAndTheOldestIdIsForgottenPastTheWindow() {
        RecentIds ids = new RecentIds(2);
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        UUID c = UUID.randomUUID();

        assertThat(ids.firstTime(a)).isTrue();
        assertThat(ids.firstTime(a)).isFalse();
        assertThat(ids.firstTime(b)).isTrue();
        assertThat(ids.firstTime(c)).isTrue(); // a is forgotten now
        assertThat(ids.firstTime(b)).isFalse();
        assertThat(ids.firstTime(a)).isTrue();
    }

    @Test
    void aDeadGatewaysNodesSpreadOverTheGatewaysLeftNotAllOnTheBestRanked() {
        GatewayAddress gw1 = new GatewayAddress("gw-1", "127.0.0.1", 5500);
        GatewayAddress gw2 = new GatewayAddress("gw-2", "127.0.0.1", 5501);
        GatewayAddress gw3 = new GatewayAddress("gw-3", "127.0.0.1", 5502);
        Random random = new Random(7);
        Map<InetSocketAddress, Integer> landed = new HashMap<>();

        for (int node = 0; node < 1_000; node++) {
            FailoverOrder order = new FailoverOrder(random);
            order.update(List.of(gw2, gw3, gw1)); // every node holds the same list, gw-2 best
            landed.merge(order.next(gw1.socketAddress()), 1, Integer::sum);
        }

        assertThat(landed).containsOnlyKeys(gw2.socketAddress(), gw3.socketAddress());
        assertThat(landed.get(gw2.socketAddress())).as("about half each").isBetween(430, 570);
    }

    @Test
    void aNodeTriesEachGatewayLeftOnceThenStartsOverAvoidingTheOneThatJustFailed() {
        GatewayAddress gw1 = new GatewayAddress("gw-1", "127.0.0.1", 5500);
        GatewayAddress gw2 = new GatewayAddress("gw-2", "127.0.0.1", 5501);
        GatewayAddress gw3 = new GatewayAddress("gw-3", "127.0.0.1", 5502);
        FailoverOrder order = new FailoverOrder(new Random(11));
        order.update(List.of(gw1, gw2, gw3));

        InetSocketAddress second = order.next(gw1.socketAddress());
        InetSocketAddress third = order.next(second);
        assertThat(List.of(second, third)).containsExactlyInAnyOrder(gw2.socketAddress(), gw3.socketAddress());
        for (int i = 0; i < 20; i++) {
            InetSocketAddress again = order.next(third);
            assertThat(again).as("every one failed once: any but the one that just failed").isNotEqualTo(third);
            third = again;
        }
        order.connected();
        assertThat(order.next(gw1.socketAddress())).isIn(gw2.socketAddress(), gw3.socketAddress());

        FailoverOrder two = new FailoverOrder(new Random(13));
        two.update(List.of(gw1, gw2));
        assertThat(two.next(gw2.socketAddress())).isEqualTo(gw1.socketAddress());
        assertThat(two.next(gw1.socketAddress())).as("both failed: not the best again, which just failed")
                .isEqualTo(gw2.socketAddress());
    }

    @Test
    void withoutAGatewayListANodeTriesItsOwnGatewayAgain() {
        InetSocketAddress own = new InetSocketAddress("127.0.0.1", 5500);

        assertThat(new FailoverOrder().next(own)).isEqualTo(own);
    }

    @Test
    void connectRetriesWaitLongerEachTimeAndABusyAnswerIsNotCountedAsAnAttempt() {
        ConnectBackoff backoff = new ConnectBackoff(100, 1_000);
        backoff.begin();

        backoff.attempted(0);
        assertThat(backoff.attempts()).isEqualTo(1);
        assertThat(backoff.due(99)).isFalse();
        assertThat(backoff.due(150)).isTrue(); // 100 ms, at most half again with jitter
        backoff.attempted(150);
        assertThat(backoff.due(150 + 199)).isFalse(); // the second waits 200 ms at least
        assertThat(backoff.due(150 + 300)).isTrue();

        backoff.busy(450);
        assertThat(backoff.attempts()).as("BUSY gives the attempt back").isEqualTo(1);
        assertThat(backoff.due(450 + 199)).isFalse();
        backoff.begin();
        assertThat(backoff.attempts()).isZero();
    }

    @Test
    void reconnectsWaitLongerForEachLossInARowUntilAConnectionIsAccepted() {
        ConnectBackoff backoff = new ConnectBackoff(100, 1_000);

        backoff.lost(0, false);
        assertThat(backoff.due(999)).isFalse();
        assertThat(backoff.due(1_500)).isTrue();
        backoff.lost(2_000, false);
        assertThat(backoff.due(2_000 + 1_999)).isFalse();
        backoff.connected();
        backoff.lost(10_000, false);
        assertThat(backoff.due(10_000 + 1_500)).as("the losses in a row started over").isTrue();
    }

    @Test
    void aNodeWhoseGatewayFailedMovesToTheNextAtOnceSpreadOverHalfASecond() {
        long latest = 0;
        long earliest = Long.MAX_VALUE;
        for (int node = 0; node < 200; node++) {
            ConnectBackoff backoff = new ConnectBackoff(100, 1_000);
            backoff.lost(0, true);
            long due = 0;
            while (!backoff.due(due)) {
                due += 10;
            }
            latest = Math.max(latest, due);
            earliest = Math.min(earliest, due);
        }
        assertThat(latest).isLessThanOrEqualTo(ConnectBackoff.FAILOVER_SPREAD_MS);
        assertThat(latest - earliest).as("spread, not all at once").isGreaterThan(ConnectBackoff.FAILOVER_SPREAD_MS / 2);

        ConnectBackoff again = new ConnectBackoff(100, 1_000);
        again.lost(0, true);
        again.lost(600, true); // the next gateway failed too: back to the growing wait
        assertThat(again.due(600 + 1_999)).isFalse();
    }
}
