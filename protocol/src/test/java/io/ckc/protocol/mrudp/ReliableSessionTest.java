package io.ckc.protocol.mrudp;

import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.ErrorCode;
import io.ckc.protocol.frame.Frame;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class ReliableSessionTest {

    private static final UUID MN = UUID.randomUUID();

    /** Two sessions joined by a link that drops and reorders a share of frames both ways. */
    private static final class LossyLink {
        final Random random;
        final double dropShare;
        final List<Frame> toB = new ArrayList<>();
        final List<Frame> toA = new ArrayList<>();

        LossyLink(long seed, double dropShare) {
            this.random = new Random(seed);
            this.dropShare = dropShare;
        }

        void push(List<Frame> queue, Frame frame) {
            if (random.nextDouble() < dropShare) {
                return;
            }
            // reorder: insert at a random place among the frames not yet delivered
            queue.add(queue.isEmpty() ? 0 : random.nextInt(queue.size() + 1), frame);
        }
    }

    @Test
    void everyMessageArrivesExactlyOnceInOrderOverALinkLosingAndReorderingTwentyPercent() {
        ReliabilityConfig config = new ReliabilityConfig(50, 400, 30, 16, 64);
        LossyLink link = new LossyLink(7, 0.2);
        List<Body> deliveredAtB = new ArrayList<>();
        List<Body> deliveredAtA = new ArrayList<>();
        ReliableSession[] sessions = new ReliableSession[2];
        sessions[0] = new ReliableSession(MN, 1, config, f -> link.push(link.toB, f));
        sessions[1] = new ReliableSession(MN, 1, config, f -> link.push(link.toA, f));

        int messages = 2_000;
        List<Body> sentByA = new ArrayList<>();
        List<Body> sentByB = new ArrayList<>();
        long now = 0;
        for (int i = 0; i < messages; i++) {
            Body a = new Body.MnMessage(UUID.randomUUID(), "echo", null, new byte[] {(byte) i});
            Body b = new Body.Delivery(UUID.randomUUID(), "app", new byte[] {(byte) i});
            sentByA.add(a);
            sentByB.add(b);
            sessions[0].send(a, now);
            sessions[1].send(b, now);
        }
        for (int step = 0; step < 200_000 && (deliveredAtB.size() < messages || deliveredAtA.size() < messages
                || sessions[0].hasInFlight() || sessions[1].hasInFlight()); step++) {
            now += 5;
            drain(link.toB, sessions[1], deliveredAtB, now);
            drain(link.toA, sessions[0], deliveredAtA, now);
            assertThat(sessions[0].tick(now)).isNotEqualTo(ReliableSession.TickResult.BROKEN);
            assertThat(sessions[1].tick(now)).isNotEqualTo(ReliableSession.TickResult.BROKEN);
        }
        assertThat(deliveredAtB).containsExactlyElementsOf(sentByA);
        assertThat(deliveredAtA).containsExactlyElementsOf(sentByB);
        assertThat(sessions[0].retransmissions()).isPositive();
    }

    private static void drain(List<Frame> queue, ReliableSession session, List<Body> delivered, long now) {
        ArrayDeque<Frame> batch = new ArrayDeque<>(queue);
        queue.clear();
        for (Frame frame : batch) {
            if (frame instanceof Frame.Data d) {
                session.onData(d.seq(), d.body()).forEach(r -> {
                    delivered.add(r.body());
                    session.acknowledge(r.seq());
                });
            } else if (frame instanceof Frame.Ack a) {
                session.onAck(a.seq(), now);
            } else {
                throw new AssertionError(frame);
            }
        }
    }

    @Test
    void aFrameThatIsNeverAcknowledgedBreaksTheSessionAfterTheRetryBudgetWithBackoff() {
        ReliabilityConfig config = new ReliabilityConfig(100, 800, 3, 8, 8);
        List<Long> sendTimes = new ArrayList<>();
        long[] clock = {0};
        ReliableSession session = new ReliableSession(MN, 1, config, f -> sendTimes.add(clock[0]));
        Body body = new Body.Delivery(UUID.randomUUID(), "app", new byte[0]);
        session.send(body, 0);
        ReliableSession.TickResult result = ReliableSession.TickResult.IN_FLIGHT;
        while (result != ReliableSession.TickResult.BROKEN && clock[0] < 10_000) {
            clock[0] += 10;
            result = session.tick(clock[0]);
        }
        assertThat(result).isEqualTo(ReliableSession.TickResult.BROKEN);
        assertThat(sendTimes).containsExactly(0L, 100L, 300L, 700L); // 1 send + 3 retries, timeouts 100, 200, 400
        assertThat(clock[0]).isEqualTo(1_500L); // the last retry's 800 ms passed too
        assertThat(session.drainUnacknowledged()).containsExactly(body);
    }

    @Test
    void sendsBeyondTheWindowWaitForAcknowledgements() {
        ReliabilityConfig config = new ReliabilityConfig(100, 100, 3, 2, 8);
        List<Frame> sent = new ArrayList<>();
        ReliableSession session = new ReliableSession(MN, 1, config, sent::add);
        for (int i = 0; i < 5; i++) {
            session.send(new Body.Delivery(UUID.randomUUID(), "app", new byte[0]), 0);
        }
        assertThat(sent).hasSize(2);
        session.onAck(1, 1);
        assertThat(sent).hasSize(3);
        assertThat(((Frame.Data) sent.get(2)).seq()).isEqualTo(3);
        assertThat(session.drainUnacknowledged()).hasSize(4);
        assertThat(session.hasInFlight()).isFalse();
    }

    @Test
    void aDuplicateOfADeliveredFrameIsAcknowledgedAgainButNotDeliveredTwice() {
        List<Frame> sent = new ArrayList<>();
        ReliableSession session = new ReliableSession(MN, 1, ReliabilityConfig.DEFAULT, sent::add);
        Body body = new Body.Delivery(UUID.randomUUID(), "app", new byte[0]);
        assertThat(session.onData(1, body)).hasSize(1);
        session.acknowledge(1);
        assertThat(session.onData(1, body)).isEmpty();
        assertThat(sent).containsExactly(new Frame.Ack(MN, 1, 1), new Frame.Ack(MN, 1, 1));
    }

    @Test
    void aRepeatOfAFrameItsOwnerHasNotAnsweredYetGetsNoAckUntilItDoes() {
        List<Frame> sent = new ArrayList<>();
        ReliableSession session = new ReliableSession(MN, 1, ReliabilityConfig.DEFAULT, sent::add);
        Body body = new Body.MnMessage(UUID.randomUUID(), "echo", null, new byte[0]);
        assertThat(session.onData(1, body)).hasSize(1);
        assertThat(session.onData(1, body)).as("the gateway still writes it to Kafka").isEmpty();
        assertThat(sent).as("no ack for a message Kafka does not have yet").isEmpty();
        session.acknowledge(1);
        assertThat(session.onData(1, body)).isEmpty();
        assertThat(sent).containsExactly(new Frame.Ack(MN, 1, 1), new Frame.Ack(MN, 1, 1));
    }

    @Test
    void aRefusedFrameSentAgainIsRefusedAgainNeverAcknowledged() {
        List<Frame> sent = new ArrayList<>();
        ReliableSession session = new ReliableSession(MN, 1, ReliabilityConfig.DEFAULT, sent::add);
        Body body = new Body.MnMessage(UUID.randomUUID(), "echo", null, new byte[0]);
        Frame.Error busy = new Frame.Error(MN, 1, ErrorCode.BUSY, 1, "busy");
        assertThat(session.onData(1, body)).hasSize(1);
        session.refuse(1, busy);
        assertThat(session.onData(1, body)).as("the refusal was lost: the node sends the frame again").isEmpty();
        assertThat(sent).containsExactly(busy, busy);
    }

    @Test
    void aDeliveryPastItsExpiryLeavesWithoutItsContentFirstOrAgainAndItsAnswerNamesTheDelivery() {
        ReliabilityConfig config = new ReliabilityConfig(100, 100, 10, 1, 8);
        List<Frame> sent = new ArrayList<>();
        ReliableSession session = new ReliableSession(MN, 1, config, sent::add);
        Body.Delivery first = new Body.Delivery(UUID.randomUUID(), "app", new byte[]{1});
        Body.Delivery second = new Body.Delivery(UUID.randomUUID(), "app", new byte[]{2});
        session.send(first, 0, 150);
        session.send(second, 0, 150); // waits for the window of 1
        session.tick(120);
        session.tick(260);
        assertThat(sent).extracting(f -> ((Frame.Data) f).body())
                .containsExactly(first, first, new Body.Expired(first.messageId()));
        assertThat(session.onAck(1, 270)).as("the peer had it: delivered").isEqualTo(first);
        assertThat(((Frame.Data) sent.get(3)).body()).as("queued past its expiry: never sent with content")
                .isEqualTo(new Body.Expired(second.messageId()));
        assertThat(session.onRefused(2, 280, false)).isEqualTo(second);
        assertThat(session.hasInFlight()).isFalse();
    }

    @Test
    void aDeliveryHeldBehindAMissingFrameGoesUpAsExpiredWhenItsDeadlinePassesMeanwhile() {
        ReliableSession session = new ReliableSession(MN, 1, ReliabilityConfig.DEFAULT, f -> { });
        Body.Delivery first = new Body.Delivery(UUID.randomUUID(), "app", new byte[]{1});
        Body.Delivery late = new Body.Delivery(UUID.randomUUID(), "app", new byte[]{2});
        Body.Delivery other = new Body.Delivery(UUID.randomUUID(), "app", new byte[]{3});
        assertThat(session.onData(2, late)).as("the first frame was lost").isEmpty();
        assertThat(session.onData(3, other)).isEmpty();
        assertThat(session.onData(2, new Body.Expired(late.messageId()))).as("sent again past its deadline").isEmpty();
        assertThat(session.onData(3, new Body.Expired(UUID.randomUUID()))).as("not the buffered message").isEmpty();
        assertThat(session.onData(1, first)).extracting(ReliableSession.Received::body)
                .containsExactly(first, new Body.Expired(late.messageId()), other);
    }
}
