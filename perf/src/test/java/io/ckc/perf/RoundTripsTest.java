package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** The echo bookkeeping: once per (node, seq), repeats and reorderings counted, losses per stretch of numbers. */
class RoundTripsTest {

    @Test
    void aRepeatUnderItsOwnIdPassedTheNodesDedupeAndOneUnderAnotherIdWasAnsweredTwice() {
        RoundTrips trips = new RoundTrips(1);
        java.util.UUID first = java.util.UUID.randomUUID();
        trips.arrived(0, 0, 1_000, first);
        trips.arrived(0, 40, 1_000, java.util.UUID.randomUUID());
        assertThat(trips.arrived(0, 0, 1_000, first)).isFalse();
        assertThat(trips.arrived(0, 0, 1_000, java.util.UUID.randomUUID())).isFalse();
        assertThat(trips.arrived(0, 40, 1_000, java.util.UUID.randomUUID())).isFalse();
        assertThat(trips.duplicates.get()).isOne();
        assertThat(trips.answeredTwice.get()).isEqualTo(2);
        assertThat(trips.delivered.get()).isEqualTo(2);
    }

    @Test
    void echoesCountOnceAndLossesAreFoundByMessageNumber() {
        RoundTrips trips = new RoundTrips(2);
        for (int seq : new int[] {0, 1, 3, 2, 5}) { // node 0 misses 4; 2 comes after 3
            trips.arrived(0, seq, 1_000);
        }
        assertThat(trips.arrived(0, 5, 1_000)).isFalse();
        for (int seq = 0; seq < 3; seq++) { // node 1 sent only 4 and misses 3
            trips.arrived(1, seq, 1_000);
        }
        int[] sent = {6, 4};
        assertThat(trips.delivered.get()).isEqualTo(8);
        assertThat(trips.duplicates.get()).isOne();
        assertThat(trips.reordered.get()).isOne();
        assertThat(trips.missing(0, 10, sent)).isEqualTo(2);
        assertThat(trips.missing(4, 10, sent)).as("node 0's 4, not node 1's 3").isOne();
        assertThat(trips.missing(0, 3, sent)).isZero();
        assertThat(trips.missing(5, 6, sent)).isZero();
    }

    @Test
    void warmUpEchoesAreCountedApartAndNeverMeasured() {
        RoundTrips trips = new RoundTrips(1);
        trips.arrived(0, RoundTrips.warmUpSeq(0), 900_000);
        trips.arrived(0, 0, 1_000);

        assertThat(trips.warmUpDelivered.get()).isOne();
        assertThat(trips.delivered.get()).isOne();
        assertThat(trips.total().getTotalCount()).isOne();
        assertThat(trips.total().getMaxValue()).isLessThan(2_000);
        assertThat(trips.meanMsBySeq()).hasSize(1);
    }

    @Test
    void aMessageHandedBackUnsentIsNotWaitedFor() {
        RoundTrips trips = new RoundTrips(1);
        trips.sent.set(3);
        trips.arrived(0, 0, 1_000);
        trips.arrived(0, 1, 1_000);
        AtomicLong handedBack = new AtomicLong(1); // the third was refused as BUSY and handed back

        // Without the handed-back count this waits out the 60 s quiet time for an echo that will not come.
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> trips.awaitEchoes(60, handedBack::get, () -> { }));
        assertThat(trips.delivered.get()).isEqualTo(2);
        assertThat(trips.lost()).as("still counted as not echoed").isOne();
    }
}
