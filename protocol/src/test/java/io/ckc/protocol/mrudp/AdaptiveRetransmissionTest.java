package io.ckc.protocol.mrudp;

import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.Frame;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The retransmission timeout follows the measured round trip; timeouts carry jitter; waits back off. */
class AdaptiveRetransmissionTest {

    private static final UUID MN = UUID.randomUUID();

    private static Body body() {
        return new Body.Delivery(UUID.randomUUID(), "app", new byte[0]);
    }

    @Test
    void aSlowPeerRaisesTheTimeoutSoFramesThatAreOnlyLateAreNotSentAgain() {
        ReliabilityConfig config = new ReliabilityConfig(100, 4_000, 8, 64, 64);
        List<Frame> sent = new ArrayList<>();
        ReliableSession session = new ReliableSession(MN, 1, config, sent::add);
        assertThat(session.retransmitTimeoutMs()).isEqualTo(100);

        long now = 0;
        for (int i = 1; i <= 20; i++) { // the peer answers every frame after 600 ms
            session.send(body(), now);
            now += 600;
            session.onAck(i, now);
        }
        assertThat(session.retransmitTimeoutMs()).as("smoothed 600 ms round trip plus its variation")
                .isBetween(600L, 1_200L);

        session.send(body(), now);
        int before = sent.size();
        for (long t = now + 10; t <= now + 590; t += 10) {
            session.tick(t);
        }
        session.onAck(21, now + 600);
        assertThat(sent).as("nothing sent again while the answer was merely as late as usual").hasSize(before);
        assertThat(session.retransmissions()).isZero();
    }

    @Test
    void aFastPeerKeepsTheConfiguredFloorAndAnAckOfARetransmittedFrameIsNotSampled() {
        ReliabilityConfig config = new ReliabilityConfig(100, 4_000, 8, 64, 64);
        ReliableSession session = new ReliableSession(MN, 1, config, f -> { });
        session.send(body(), 0);
        session.onAck(1, 2);
        assertThat(session.retransmitTimeoutMs()).as("2 ms round trip: the floor").isEqualTo(100);
        assertThat(session.roundTripTimeoutMs()).as("the path's own timeout, without the floor: 2 ms + the 10 ms granularity")
                .isEqualTo(12);

        session.send(body(), 10);
        session.tick(200); // sent again at 200
        session.onAck(2, 3_000); // which copy does it answer? Karn: neither counts
        assertThat(session.retransmitTimeoutMs()).isEqualTo(100);
    }

    @Test
    void timeoutsWithJitterFallBetweenTheTimeoutAndItsStretchedValue() {
        ReliabilityConfig config = new ReliabilityConfig(100, 100, 1, 512, 64, 0.5);
        List<Long> firstResend = new ArrayList<>();
        long[] clock = {0};
        List<ReliableSession> sessions = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            boolean[] sentOnce = {false};
            ReliableSession session = new ReliableSession(MN, 1, config, f -> {
                if (sentOnce[0]) {
                    firstResend.add(clock[0]);
                }
                sentOnce[0] = true;
            });
            session.send(body(), 0);
            sessions.add(session);
        }
        for (clock[0] = 1; clock[0] <= 200; clock[0]++) {
            long t = clock[0];
            sessions.forEach(s -> s.tick(t));
        }
        assertThat(firstResend).hasSize(200).allMatch(t -> t >= 100 && t < 150);
        assertThat(firstResend.stream().distinct().count()).as("spread, not all at once").isGreaterThan(20);
    }

    @Test
    void waitsDoubleUpToTheirCapAndJitterOnlyLengthensThem() {
        assertThat(Backoff.exponential(500, 1, 30_000)).isEqualTo(500);
        assertThat(Backoff.exponential(500, 4, 30_000)).isEqualTo(4_000);
        assertThat(Backoff.exponential(500, 12, 30_000)).isEqualTo(30_000);
        assertThat(Backoff.exponential(500, 200, 30_000)).isEqualTo(30_000);
        for (int i = 0; i < 1_000; i++) {
            assertThat(Backoff.jittered(1_000, 0.5)).isBetween(1_000L, 1_499L);
        }
        assertThat(Backoff.jittered(1_000, 0)).isEqualTo(1_000);
    }

    @Test
    void aFrameOutOfRetriesKeepsTheSessionWhileThePeerIsHeardFromSinceItWasSent() {
        ReliabilityConfig config = new ReliabilityConfig(100, 400, 3, 8, 8);
        ReliableSession session = new ReliableSession(MN, 1, config, f -> { });
        session.send(body(), 0);
        for (long now = 10; now <= 3_000; now += 10) {
            session.heard(now); // pings, other acks: the peer is alive, only this frame is slow
            assertThat(session.tick(now)).as("at %d ms, past the budget spent at 1.1 s", now)
                    .isEqualTo(ReliableSession.TickResult.IN_FLIGHT);
        }
        assertThat(session.retransmissions()).isGreaterThan(3);
    }

    @Test
    void aPeerHeardFromButNeverAcknowledgingStillBreaksTheSessionAtFourTimesTheBudget() {
        ReliabilityConfig config = new ReliabilityConfig(100, 100, 2, 8, 8);
        ReliableSession session = new ReliableSession(MN, 1, config, f -> { });
        session.send(body(), 0);
        long now = 0;
        ReliableSession.TickResult result = ReliableSession.TickResult.IN_FLIGHT;
        while (result != ReliableSession.TickResult.BROKEN && now < 10_000) {
            now += 10;
            session.heard(now);
            result = session.tick(now);
        }
        assertThat(result).isEqualTo(ReliableSession.TickResult.BROKEN);
        assertThat(session.retransmissions()).isEqualTo(8); // 4 × 2 retries
    }
}
