package io.ckc.gateway.core;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The per-address and per-node limits on their own, on a clock the test moves. */
class RateLimitsTest {

    private final ManualClock clock = new ManualClock();

    @Test
    void anAddressOpensItsBurstAtOnceThenItsRateAndIsForgottenOnceItsBucketIsFullAgain() throws Exception {
        AddressLimits limits = new AddressLimits(new RateLimits(0, 0, 10, 20, 0, 0, 0), clock);
        InetAddress flooder = InetAddress.getByName("127.0.0.9");
        InetAddress honest = InetAddress.getByName("127.0.0.1");

        int opened = 0;
        for (int i = 0; i < 1_000; i++) {
            opened += limits.open(flooder) ? 1 : 0;
        }
        assertThat(opened).as("the burst").isEqualTo(20);
        assertThat(limits.open(honest)).as("another address keeps its own").isTrue();
        clock.advanceMs(500);
        opened = 0;
        for (int i = 0; i < 1_000; i++) {
            opened += limits.open(flooder) ? 1 : 0;
        }
        assertThat(opened).as("half a second at 10 a second").isEqualTo(5);
        assertThat(limits.open(null)).as("a protocol without addresses is not limited here").isTrue();
        assertThat(limits.answerRefusal(flooder)).as("the first refusal is answered").isTrue();
        assertThat(limits.answerRefusal(flooder)).as("the rest of that second's are not").isFalse();

        limits.sweep();
        assertThat(limits.remembered()).as("the flooder's bucket, still refilling, and its answer; the other full again")
                .isEqualTo(2);
        clock.advanceMs(2_000);
        assertThat(limits.answerRefusal(flooder)).as("a second later, again").isTrue();
        clock.advanceMs(1_000);
        limits.sweep();
        assertThat(limits.remembered()).isZero();
    }

    @Test
    void aNodeWhoseSessionsOpenTooOftenIsRefusedForThePenaltyThenForgotten() {
        NodeLimits limits = new NodeLimits(new RateLimits(0, 0, 0, 0, 3, 60_000, 30_000), 1_024, clock);
        UUID flapper = UUID.randomUUID();
        UUID steady = UUID.randomUUID();

        assertThat(limits.announced(flapper, 0)).isFalse();
        assertThat(limits.announced(flapper, 10_000)).isFalse();
        assertThat(limits.announced(flapper, 20_000)).isFalse();
        assertThat(limits.flapping(flapper, 20_000)).as("three within the window are allowed").isFalse();
        assertThat(limits.announced(flapper, 30_000)).as("the fourth").isTrue();
        assertThat(limits.flapping(flapper, 30_000)).isTrue();
        assertThat(limits.flapping(flapper, 59_999)).isTrue();
        assertThat(limits.flapping(flapper, 60_000)).as("the penalty served").isFalse();

        assertThat(limits.announced(steady, 0)).isFalse();
        assertThat(limits.announced(steady, 70_000)).isFalse();
        assertThat(limits.announced(steady, 140_000)).isFalse();
        assertThat(limits.announced(steady, 210_000)).as("one a window is no flapping").isFalse();

        limits.sweep(200_000);
        assertThat(limits.remembered()).as("the steady node's window is still open").isEqualTo(1);
        limits.sweep(270_000);
        assertThat(limits.remembered()).isZero();
    }

    @Test
    void limitsAreCheckedWhenTheyAreMade() {
        assertThatThrownBy(() -> new RateLimits(-1, 0, 0, 0, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RateLimits(0, 0, 100, 10, 0, 0, 0))
                .hasMessageContaining("CKC_ADDRESS_SESSIONS_BURST");
        assertThatThrownBy(() -> new RateLimits(0, 0, 0, 0, 5, 0, 1_000)).hasMessageContaining("CKC_FLAP_WINDOW_MS");
    }
}
