package io.ckc.client;

import io.ckc.protocol.frame.GatewayAddress;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The node's handover drain and its liveness probe, on their own, with the clock in the test's hand. */
class HandoverAndLivenessTest {

    private static final GatewayAddress GW2 = new GatewayAddress("gw-2", "127.0.0.1", 5002);
    private static final GatewayAddress GW3 = new GatewayAddress("gw-3", "127.0.0.1", 5003);

    @Test
    void aHandoverDrainsUntilNothingIsInFlightOrItsTimeIsUpAndIgnoresASecondOneMeanwhile() {
        HandoverDrain handover = new HandoverDrain(2_000);
        assertThat(handover.begin(new GatewayAddress("gw-1", "127.0.0.1", 5001), "gw-1", 0))
                .as("to the gateway it is on").isFalse();
        assertThat(handover.begin(GW2, "gw-1", 1_000)).isTrue();
        assertThat(handover.begin(GW3, "gw-1", 1_100)).as("while one drains").isFalse();

        assertThat(handover.due(true, 2_999)).isFalse();
        assertThat(handover.due(false, 1_200)).as("nothing in flight").isTrue();
        assertThat(handover.due(true, 3_000)).as("drain time up").isTrue();

        assertThat(handover.leave("gw-1")).isEqualTo(GW2);
        assertThat(handover.draining()).isFalse();
        assertThat(handover.moving()).isTrue();
        assertThat(handover.finish()).isEqualTo("gw-1");
        assertThat(handover.finish()).isNull();
    }

    @Test
    void aCancelledHandoverNeverLeaves() {
        HandoverDrain handover = new HandoverDrain(2_000);
        handover.begin(GW2, "gw-1", 0);
        handover.cancel();

        assertThat(handover.due(false, 5_000)).isFalse();
        assertThat(handover.moving()).isFalse();
        assertThat(handover.begin(GW3, "gw-1", 5_000)).as("a later one is taken").isTrue();
    }

    @Test
    void aQuietGatewayIsProbedThreeTimesBeforeItCountsAsSilent() {
        LivenessProbe liveness = new LivenessProbe(1_000, 4_000, 500); // probes 1 s apart between 1 s and 4 s
        liveness.heard(0);
        int probes = 0;
        long silentAt = -1;
        for (long now = 0; now <= 5_000 && silentAt < 0; now += 100) {
            switch (liveness.check(now, false)) {
                case PROBE -> probes++;
                case SILENT -> silentAt = now;
                case ALIVE -> { }
            }
        }
        assertThat(probes).isEqualTo(3);
        assertThat(silentAt).isEqualTo(4_100);
    }

    @Test
    void anAnswerPutsOffTheSilence() {
        LivenessProbe liveness = new LivenessProbe(1_000, 4_000, 500);
        liveness.heard(0);
        assertThat(liveness.check(1_500, false)).isEqualTo(LivenessProbe.Verdict.PROBE);
        liveness.heard(1_600);
        assertThat(liveness.check(2_000, false)).isEqualTo(LivenessProbe.Verdict.ALIVE);
        assertThat(liveness.check(5_000, false)).isEqualTo(LivenessProbe.Verdict.PROBE);
        assertThat(liveness.check(5_601, false)).isEqualTo(LivenessProbe.Verdict.SILENT);
    }

    @Test
    void aNodeWaitingForAcknowledgementsGivesAGatewayUpAfterThreeUnansweredProbes() {
        LivenessProbe liveness = new LivenessProbe(15_000, 20_000, 500);
        liveness.heard(0);
        List<String> verdicts = new ArrayList<>();
        long silentAt = -1;
        for (long now = 0; now <= 20_000 && silentAt < 0; now += 100) {
            LivenessProbe.Verdict verdict = liveness.check(now, true);
            if (verdict != LivenessProbe.Verdict.ALIVE) {
                verdicts.add(now + ":" + verdict);
            }
            if (verdict == LivenessProbe.Verdict.SILENT) {
                silentAt = now;
            }
        }
        assertThat(verdicts).containsExactly("600:PROBE", "1100:PROBE", "1600:PROBE", "2100:SILENT");

        LivenessProbe answered = new LivenessProbe(15_000, 20_000, 500);
        answered.heard(0);
        assertThat(answered.check(0, true)).isEqualTo(LivenessProbe.Verdict.ALIVE);
        assertThat(answered.check(600, true)).isEqualTo(LivenessProbe.Verdict.PROBE);
        assertThat(answered.check(1_100, true)).isEqualTo(LivenessProbe.Verdict.PROBE);
        answered.heard(1_200); // its pong
        assertThat(answered.check(1_600, true)).as("quiet again for less than the probe time").isEqualTo(LivenessProbe.Verdict.ALIVE);
        assertThat(answered.check(1_800, true)).isEqualTo(LivenessProbe.Verdict.PROBE);
        assertThat(answered.check(2_300, true)).isEqualTo(LivenessProbe.Verdict.PROBE);
        assertThat(answered.check(2_800, true)).isEqualTo(LivenessProbe.Verdict.PROBE);
        assertThat(answered.check(3_300, true)).isEqualTo(LivenessProbe.Verdict.SILENT);
    }

    @Test
    void aNodeWithNoOtherGatewayBacksOffItsProbesAndWaitsOutAPause() {
        LivenessProbe liveness = new LivenessProbe(15_000, 20_000, 250);
        liveness.heard(0);
        List<String> verdicts = new ArrayList<>();
        long silentAt = -1;
        for (long now = 0; now <= 20_000 && silentAt < 0; now += 100) {
            LivenessProbe.Verdict verdict = liveness.check(now, true, 40, false);
            if (verdict != LivenessProbe.Verdict.ALIVE) {
                verdicts.add(now + ":" + verdict);
            }
            if (verdict == LivenessProbe.Verdict.SILENT) {
                silentAt = now;
            }
        }
        assertThat(verdicts).as("500 ms, then twice as long after each unanswered probe")
                .containsExactly("600:PROBE", "1600:PROBE", "3600:PROBE", "7600:SILENT");

        LivenessProbe paused = new LivenessProbe(15_000, 20_000, 250);
        paused.heard(0);
        for (long now = 0; now <= 3_000; now += 100) {
            assertThat(paused.check(now, true, 40, false)).isNotEqualTo(LivenessProbe.Verdict.SILENT);
        }
        paused.heard(3_050); // the gateway answers again after a 3-second pause
        assertThat(paused.check(3_100, true, 40, false)).isEqualTo(LivenessProbe.Verdict.ALIVE);
        assertThat(paused.check(3_700, true, 40, false)).as("the backoff starts over").isEqualTo(LivenessProbe.Verdict.PROBE);

        LivenessProbe hasSomewhereToGo = new LivenessProbe(15_000, 20_000, 250);
        hasSomewhereToGo.heard(0);
        long gaveUpAt = -1;
        for (long now = 0; now <= 20_000 && gaveUpAt < 0; now += 100) {
            if (hasSomewhereToGo.check(now, true, 40, true) == LivenessProbe.Verdict.SILENT) {
                gaveUpAt = now;
            }
        }
        assertThat(gaveUpAt).as("with another gateway it moves on as before").isEqualTo(1_200);
    }

    @Test
    void theFailoverOrderKnowsWhetherThereIsAnotherGateway() {
        FailoverOrder order = new FailoverOrder();
        GatewayAddress gw1 = new GatewayAddress("gw-1", "127.0.0.1", 5001);
        assertThat(order.hasAlternativeTo(gw1.socketAddress())).as("no list yet").isFalse();
        order.update(List.of(gw1));
        assertThat(order.hasAlternativeTo(gw1.socketAddress())).isFalse();
        order.update(List.of(gw1, GW2));
        assertThat(order.hasAlternativeTo(gw1.socketAddress())).isTrue();
        assertThat(order.next(gw1.socketAddress())).isEqualTo(GW2.socketAddress());
    }

    @Test
    void aSlowPathIsProbedAtItsRoundTripTimeoutUpToFourTimesTheProbeTime() {
        for (long[] rttAndSilentAt : new long[][] {{0, 1_200}, {100, 1_200}, {400, 1_700}, {5_000, 4_100}}) {
            LivenessProbe liveness = new LivenessProbe(15_000, 20_000, 250);
            liveness.heard(0);
            long silentAt = -1;
            int probes = 0;
            for (long now = 0; now <= 20_000 && silentAt < 0; now += 100) {
                switch (liveness.check(now, true, rttAndSilentAt[0])) {
                    case PROBE -> probes++;
                    case SILENT -> silentAt = now;
                    case ALIVE -> { }
                }
            }
            assertThat(probes).isEqualTo(3);
            assertThat(silentAt).as("round-trip timeout %d ms", rttAndSilentAt[0]).isEqualTo(rttAndSilentAt[1]);
        }
    }

    @Test
    void theWaitForAnAcknowledgementCountsFromTheFrameNotFromTheLastAnswer() {
        LivenessProbe liveness = new LivenessProbe(15_000, 20_000, 500);
        liveness.heard(0);
        assertThat(liveness.check(3_000, false)).as("idle, under the keepalive").isEqualTo(LivenessProbe.Verdict.ALIVE);
        assertThat(liveness.check(3_010, true)).as("a message just left, 3 s after the last answer")
                .isEqualTo(LivenessProbe.Verdict.ALIVE);
        assertThat(liveness.check(3_500, true)).isEqualTo(LivenessProbe.Verdict.ALIVE);
        assertThat(liveness.check(3_520, true)).isEqualTo(LivenessProbe.Verdict.PROBE);
        liveness.heard(3_530); // its acknowledgement
        assertThat(liveness.check(3_540, false)).isEqualTo(LivenessProbe.Verdict.ALIVE);
        assertThat(liveness.check(6_000, true)).as("the next message waits anew").isEqualTo(LivenessProbe.Verdict.ALIVE);
        assertThat(liveness.check(6_501, true)).isEqualTo(LivenessProbe.Verdict.PROBE);
        assertThat(liveness.check(7_002, true)).isEqualTo(LivenessProbe.Verdict.PROBE);
        assertThat(liveness.check(7_503, true)).isEqualTo(LivenessProbe.Verdict.PROBE);
        assertThat(liveness.check(8_004, true)).as("2 s after the unanswered frame").isEqualTo(LivenessProbe.Verdict.SILENT);
    }
}
