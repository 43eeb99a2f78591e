package io.ckc.client;

import io.ckc.protocol.frame.GatewayAddress;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The node's connection policies, each on its own: duplicates, where to fail over to, when to try again. */
class ConnectionPolicyTest {

    @Test
    void aRepeatedMessageIdIsDroppedAndTheOldestIdIsForgottenPastTheWindow() {
        io.ckc.protocol.records.RecentIds<UUID> ids = new io.ckc.protocol.records.RecentIds<>(2);
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
    void aFailedGatewayIsFollowedByTheBestOneThatHasNotFailedThenByTheBestAgain() {
        FailoverOrder order = new FailoverOrder();
        GatewayAddress gw1 = new GatewayAddress("gw-1", "127.0.0.1", 5500);
        GatewayAddress gw2 = new GatewayAddress("gw-2", "127.0.0.1", 5501);
        order.update(List.of(gw2, gw1));

        assertThat(order.next(gw2.socketAddress())).isEqualTo(gw1.socketAddress());
        assertThat(order.next(gw1.socketAddress())).as("every one failed once: the best again")
                .isEqualTo(gw2.socketAddress());
        order.connected();
        assertThat(order.next(gw1.socketAddress())).isEqualTo(gw2.socketAddress());
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
