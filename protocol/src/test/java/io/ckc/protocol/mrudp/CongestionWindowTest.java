package io.ckc.protocol.mrudp;

import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.Frame;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Sessions sharing a socket share one congestion window, the sum of what each would have alone: it grows by a frame
 * per session and round trip while acks come in time, and a session's timeout or busy refusal halves that session's
 * share.
 */
class CongestionWindowTest {

    private static final ReliabilityConfig CONFIG = new ReliabilityConfig(100, 4_000, 8, 64, 64);

    private static Body body() {
        return new Body.Delivery(UUID.randomUUID(), "app", new byte[0]);
    }

    /** {@code nodes} sessions sharing {@code window}; each one's data frames in flight go into its list of {@code inFlight}. */
    private static List<ReliableSession> sessionsOf(CongestionWindow window, int nodes, List<List<Integer>> inFlight) {
        List<ReliableSession> sessions = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            List<Integer> seqs = new ArrayList<>();
            inFlight.add(seqs);
            sessions.add(new ReliableSession(UUID.randomUUID(), 1, CONFIG, window, f -> {
                if (f instanceof Frame.Data data) {
                    seqs.add(data.seq());
                }
            }));
        }
        return sessions;
    }

    private static long dataFrames(List<Frame> sent) {
        return sent.stream().filter(f -> f instanceof Frame.Data).count();
    }

    @Test
    void sessionsOfOneSocketTogetherNeverHaveMoreFramesInFlightThanTheWindow() {
        CongestionWindow window = new CongestionWindow(4, 2, 100);
        List<Frame> sent = new ArrayList<>();
        ReliableSession a = new ReliableSession(UUID.randomUUID(), 1, CONFIG, window, sent::add);
        ReliableSession b = new ReliableSession(UUID.randomUUID(), 1, CONFIG, window, sent::add);
        for (int i = 0; i < 3; i++) {
            a.send(body(), 0);
            b.send(body(), 0);
        }
        assertThat(dataFrames(sent)).as("4 slots: a took 2, b took 2, 2 wait").isEqualTo(4);
        assertThat(window.inFlight()).isEqualTo(4);

        a.onAck(1, 5); // frees a slot and grows the window (slow start): a's next frame and one more may go
        b.tick(10);
        assertThat(window.limit()).isEqualTo(5);
        assertThat(dataFrames(sent)).isEqualTo(6);
        assertThat(a.hasInFlight()).isTrue();
    }

    @Test
    void aStallHalvesEachSessionsShareOncePerTimeoutHoweverManyFramesItDelays() {
        CongestionWindow window = new CongestionWindow(40, 4, 100);
        List<ReliableSession> sessions = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ReliableSession session = new ReliableSession(UUID.randomUUID(), 1, CONFIG, window, f -> { });
            session.send(body(), 0);
            session.onAck(1, 1); // the peer answers, then stalls
            session.send(body(), 2);
            sessions.add(session);
        }
        assertThat(window.limit()).as("20 acks in slow start").isEqualTo(60);
        sessions.forEach(s -> s.tick(150)); // the peer stalled: all 20 sessions' frames time out together
        assertThat(window.limit()).as("each of 20 shares halved once: 60 x (39/40)^20 = 36.3").isEqualTo(36);
        assertThat(window.reductions()).isEqualTo(20);
        sessions.forEach(s -> s.tick(151)); // the same stall, seen again within the timeout: no new signal
        assertThat(window.reductions()).isEqualTo(20);

        sessions.forEach(s -> s.tick(1_000)); // still no answer after the next timeout: each share halved again
        assertThat(window.limit()).isEqualTo(21);
        assertThat(window.inFlight()).as("retransmissions take no new slot").isEqualTo(20);
    }

    @Test
    void timeoutsToPeersThatNeverAcknowledgedAnythingAreNoSignOfCongestion() {
        CongestionWindow window = new CongestionWindow(40, 4, 100);
        List<ReliableSession> sessions = new ArrayList<>();
        for (int i = 0; i < 20; i++) { // a connect flood's sessions: nobody answers their first frame
            ReliableSession session = new ReliableSession(UUID.randomUUID(), 1, CONFIG, window, f -> { });
            session.send(body(), 0);
            sessions.add(session);
        }
        sessions.forEach(s -> s.tick(150));
        sessions.forEach(s -> s.tick(1_000));
        assertThat(window.limit()).isEqualTo(40);
        assertThat(window.reductions()).isZero();
        assertThat(window.inFlight()).isZero();
    }

    @Test
    void aPeerThatNeverAcknowledgesCannotStarveTheOtherSessionsOfItsSocket() {
        CongestionWindow window = new CongestionWindow(4, 4, 100);
        List<Frame> toSilent = new ArrayList<>();
        List<Frame> toOther = new ArrayList<>();
        ReliableSession silent = new ReliableSession(UUID.randomUUID(), 1, CONFIG, window, toSilent::add);
        ReliableSession other = new ReliableSession(UUID.randomUUID(), 1, CONFIG, window, toOther::add);
        for (int i = 0; i < 4; i++) {
            silent.send(body(), 0);
        }
        other.send(body(), 0);
        assertThat(dataFrames(toOther)).as("the silent peer's frames hold every slot").isZero();

        silent.tick(150); // its frames time out: they leave the window
        other.tick(150);
        assertThat(dataFrames(toOther)).as("the other session's frame goes").isEqualTo(1);
        assertThat(dataFrames(toSilent)).as("4 frames and their 4 retransmissions").isEqualTo(8);
    }

    @Test
    void afterTheFirstHalvingTheWindowGrowsByAboutOneFramePerWindowOfAcks() {
        CongestionWindow window = new CongestionWindow(16, 4, 1_000);
        window.congested();
        assertThat(window.limit()).isEqualTo(8);
        for (int i = 0; i < 8; i++) {
            window.tryAcquire();
            window.release(true);
        }
        assertThat(window.limit()).as("8 acks of about 1/8 each: just below 9").isEqualTo(8);
        window.tryAcquire();
        window.release(true);
        assertThat(window.limit()).isEqualTo(9);
    }

    @Test
    void aFrameRefusedAsBusyLeavesTheWindowAndHalvesItOncePerTimeoutButAnOtherRefusalDoesNot() {
        CongestionWindow window = new CongestionWindow(40, 4, 100);
        ReliableSession session = new ReliableSession(UUID.randomUUID(), 1, CONFIG, window, f -> { });
        for (int i = 0; i < 10; i++) {
            session.send(body(), 0);
        }
        assertThat(session.onRefused(1, 5, false)).as("refused as malformed, say: no congestion").isNotNull();
        assertThat(window.limit()).isEqualTo(40);
        assertThat(window.inFlight()).isEqualTo(9);
        assertThat(session.onRefused(2, 6, true)).as("refused as busy").isNotNull();
        assertThat(session.onRefused(3, 7, true)).isNotNull();
        assertThat(window.limit()).as("the one session's share halved once for both: one signal per timeout")
                .isEqualTo(20);
        assertThat(window.inFlight()).isEqualTo(7);
        assertThat(session.onRefused(3, 8, true)).as("already gone").isNull();
        assertThat(session.onRefused(4, 6 + CONFIG.initialRetransmitMs(), true)).isNotNull();
        assertThat(window.limit()).as("a timeout later, halved again").isEqualTo(10);
    }

    @Test
    void aClosingSessionGivesItsSlotsBackAndQueuedFramesThatWaitedTooLongAreShed() {
        CongestionWindow window = new CongestionWindow(2, 1, 10);
        ReliableSession session = new ReliableSession(UUID.randomUUID(), 1, CONFIG, window, f -> { });
        for (int i = 0; i < 5; i++) {
            session.send(body(), i * 100L);
        }
        assertThat(session.expireQueued(250, 200)).as("queued at 200, 300 and 400: at 250 none waited 200 ms").isEmpty();
        assertThat(session.expireQueued(550, 300)).as("at 550 with a 300 ms limit, only the one queued at 200 is shed")
                .hasSize(1);
        assertThat(session.drainUnacknowledged()).hasSize(4);
        assertThat(window.inFlight()).isZero();
    }

    @Test
    void badBoundsAreRefused() {
        assertThatThrownBy(() -> new CongestionWindow(1, 2, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CongestionWindow(5, 0, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * 2,000 nodes on one socket, each sending a message per round trip; the gateway refuses what they send as BUSY,
     * a timeout apart, until the window is at its floor, then takes everything again. Each node alone would regrow its
     * own window by a frame per round trip; together, by 2,000. With one frame per round trip for the whole socket the
     * window was still under 100 frames after 20 round trips.
     */
    @Test
    void aWindowSharedByManySessionsRegrowsByTheSessionsItCarriesAfterABurstOfBusyRefusals() {
        CongestionWindow window = CongestionWindow.forSocket();
        int nodes = 2_000;
        List<List<Integer>> inFlight = new ArrayList<>();
        List<ReliableSession> sessions = sessionsOf(window, nodes, inFlight);
        long now = 0;
        sessions.forEach(ReliableSession::connectAnswered);
        int timeouts = 0;
        // BUSY for every frame in flight, a timeout apart, until the window is at its floor
        while (window.limit() > ReliabilityConfig.DEFAULT.sendWindow() && timeouts < 100) {
            timeouts++;
            now += CONFIG.initialRetransmitMs() + 1;
            for (ReliableSession session : sessions) { // each node sends a message per round trip
                session.send(body(), now);
            }
            for (int i = 0; i < nodes; i++) {
                for (int seq : List.copyOf(inFlight.get(i))) {
                    inFlight.get(i).remove(Integer.valueOf(seq));
                    sessions.get(i).onRefused(seq, now, true);
                }
            }
        }
        assertThat(window.limit()).as("halved down to its floor").isEqualTo(ReliabilityConfig.DEFAULT.sendWindow());

        int roundTrips = 0;
        while (window.limit() < nodes && roundTrips < 20) { // the gateway takes everything again: 10 ms round trips
            now += 10;
            roundTrips++;
            for (int i = 0; i < nodes; i++) {
                for (int seq : List.copyOf(inFlight.get(i))) {
                    inFlight.get(i).remove(Integer.valueOf(seq));
                    sessions.get(i).onAck(seq, now);
                }
            }
            for (ReliableSession session : sessions) {
                session.send(body(), now);
                session.tick(now);
            }
        }
        assertThat(window.limit()).as("room for every node's frame again").isGreaterThanOrEqualTo(nodes);
        assertThat(roundTrips).as("round trips to regrow").isLessThanOrEqualTo(8);
    }

    @Test
    void oneSessionAloneRegrowsByOneFramePerWindowOfAcksAsTcpDoes() {
        CongestionWindow window = new CongestionWindow(16, 4, 1_000);
        ReliableSession session = new ReliableSession(UUID.randomUUID(), 1, CONFIG, window, f -> { });
        session.connectAnswered();
        window.congested();
        for (int i = 0; i < 9; i++) {
            session.send(body(), 1);
        }
        assertThat(window.flows()).isEqualTo(1);
        for (int seq = 1; seq <= 8; seq++) {
            session.onAck(seq, 2);
        }
        assertThat(window.limit()).as("8 acks of 1/8 each, one flow: just below 9").isEqualTo(8);
        session.onAck(9, 2);
        assertThat(window.limit()).isEqualTo(9);
        assertThat(window.flows()).as("nothing in flight or waiting: no flow").isZero();
    }

    /**
     * 1,000 nodes on one socket, each sending a message per 10 ms round trip; every round trip the peer refuses the
     * messages of 10 of them as busy (a different 10 each time) and takes the rest. Alone, each node would halve its
     * own window once in 100 round trips: together they keep room for all. A window that halved on any one session's
     * signal, once per timeout, lost half of all of them every 10 round trips and ended near its floor of 64.
     */
    @Test
    void busyRefusalsToAFewSessionsCutOnlyTheirSharesOfTheWindow() {
        CongestionWindow window = CongestionWindow.forSocket();
        int nodes = 1_000;
        List<List<Integer>> inFlight = new ArrayList<>();
        List<ReliableSession> sessions = sessionsOf(window, nodes, inFlight);
        sessions.forEach(ReliableSession::connectAnswered);
        long now = 0;
        long refused = 0;
        long refusedSessions = 0;
        for (int roundTrip = 0; roundTrip < 100; roundTrip++) {
            for (ReliableSession session : sessions) {
                session.send(body(), now);
            }
            now += 10;
            for (int i = 0; i < nodes; i++) {
                boolean busy = i % 100 == roundTrip % 100;
                if (busy && !inFlight.get(i).isEmpty()) {
                    refusedSessions++;
                }
                for (int seq : List.copyOf(inFlight.get(i))) {
                    inFlight.get(i).remove(Integer.valueOf(seq));
                    if (busy) {
                        sessions.get(i).onRefused(seq, now, true);
                        refused++;
                    } else {
                        sessions.get(i).onAck(seq, now);
                    }
                }
                sessions.get(i).tick(now);
            }
        }
        assertThat(refused).as("busy refusals").isGreaterThanOrEqualTo(1_000);
        assertThat(window.reductions()).as("one signal per session refused, 100 round trips apart")
                .isEqualTo(refusedSessions);
        assertThat(window.limit()).as("room for every node's frame").isGreaterThanOrEqualTo(nodes);
    }
}
