package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The plan of a faults run from its seed, and how recovery is read off the timeline. */
class FaultPlanTest {

    private static final List<FaultPlan.Kind> ALL = List.of(FaultPlan.Kind.values());
    private static final List<String> GATEWAYS = List.of("gw-1", "gw-2", "gw-3");

    @Test
    void aSeedDrawsTheSamePlanEveryTimeWithEveryKindAtLeastSoOften() {
        FaultPlan plan = FaultPlan.draw(7, ALL, 23, 3, GATEWAYS, 30, 45, 5);
        assertThat(FaultPlan.draw(7, ALL, 23, 3, GATEWAYS, 30, 45, 5)).isEqualTo(plan);
        assertThat(FaultPlan.draw(8, ALL, 23, 3, GATEWAYS, 30, 45, 5)).isNotEqualTo(plan);
        assertThat(plan.faults()).hasSize(23);
        for (FaultPlan.Kind kind : ALL) {
            assertThat(plan.count(kind)).as(kind.label()).isGreaterThanOrEqualTo(3);
        }
        assertThat(plan.kinds()).isEqualTo(7);
        for (FaultPlan.Fault fault : plan.faults()) {
            double slot = 30 + (fault.index() - 1) * 45;
            assertThat(fault.atSeconds()).isBetween(slot, slot + 5);
            assertThat(fault.gateway() != null).as(fault.describe()).isEqualTo(fault.kind().onAGateway);
            if (fault.gateway() != null) {
                assertThat(GATEWAYS).contains(fault.gateway());
            }
        }
    }

    @Test
    void fewerFaultsThanKindsTimesTheMinimumStillGiveEachKindItsShare() {
        FaultPlan plan = FaultPlan.draw(1, List.of(FaultPlan.Kind.GATEWAY_KILL, FaultPlan.Kind.BROKER_KILL), 1, 2, GATEWAYS,
                10, 20, 0);
        assertThat(plan.faults()).extracting(FaultPlan.Fault::kind).containsExactlyInAnyOrderElementsOf(
                List.of(FaultPlan.Kind.GATEWAY_KILL, FaultPlan.Kind.GATEWAY_KILL, FaultPlan.Kind.BROKER_KILL,
                        FaultPlan.Kind.BROKER_KILL));
        assertThat(plan.faults()).extracting(FaultPlan.Fault::atSeconds).containsExactly(10.0, 30.0, 50.0, 70.0);
    }

    @Test
    void kindsAreNamedAsOnTheCommandLineAndAnUnknownOneIsRefused() {
        EnumSet<FaultPlan.Kind> parsed = EnumSet.noneOf(FaultPlan.Kind.class);
        for (String label : List.of("taskmanager-kill", "broker-stop", "broker-kill", "gateway-kill", "reconnect-burst",
                "packet-loss", "rate-limit")) {
            parsed.add(FaultPlan.Kind.of(label));
        }
        assertThat(parsed).containsExactlyElementsOf(ALL);
        assertThatThrownBy(() -> FaultPlan.Kind.of("meteor")).hasMessageContaining("no fault kind meteor");
    }

    /** Seconds 1..n at the load of 100 msg/s and p99 10 ms, but for those given. */
    private static List<FaultsCommand.Second> timeline(int n, int[] badFrom, int[] badTo) {
        List<FaultsCommand.Second> seconds = new ArrayList<>();
        for (int s = 1; s <= n; s++) {
            boolean bad = false;
            for (int i = 0; i < badFrom.length; i++) {
                bad |= s >= badFrom[i] && s <= badTo[i];
            }
            seconds.add(new FaultsCommand.Second(s, bad ? 20 : 100, 5, bad ? 900 : 10, s * 100L));
        }
        return seconds;
    }

    @Test
    void recoveryEndsWithTheFirstWholeSecondAfterTheFaultAtTheLoadWithALowP99() {
        List<FaultsCommand.Second> seconds = timeline(40, new int[] {12}, new int[] {19});
        // struck at 10.4: second 11 covers (10, 11], not whole after it; 12..19 are bad; 20 is back
        assertThat(FaultsCommand.recoveryMs(seconds, 10.4, 40, 100, 100)).isEqualTo(9_600);
        assertThat(FaultsCommand.recoveryMs(seconds, 10.4, 19, 100, 100)).as("not back before the next fault").isNull();
        assertThat(FaultsCommand.recoveryMs(timeline(40, new int[0], new int[0]), 10.4, 40, 100, 100))
                .as("a fault that changed nothing").isEqualTo(1_600);
    }

    @Test
    void aSecondBackAtTheLoadButSlowOrShortOfItIsNotRecovered() {
        List<FaultsCommand.Second> seconds = new ArrayList<>(timeline(30, new int[0], new int[0]));
        seconds.set(10, new FaultsCommand.Second(11, 100, 5, 150, 1_100)); // at the load, p99 150 ms
        seconds.set(11, new FaultsCommand.Second(12, 89, 5, 10, 1_200)); // fast, 11% short of the load
        seconds.set(12, new FaultsCommand.Second(13, 111, 5, 10, 1_300)); // fast, 11% above it: catching up
        assertThat(FaultsCommand.recoveryMs(seconds, 10, 30, 100, 100)).isEqualTo(4_000);
    }

    @Test
    void aSecondThatDeliversWhatWasSentInItIsBackHoweverTheSendsRippleAroundTheRate() {
        // 150 msg/s nominal, sent in a ripple of 126 and 172 a second (nodes that each send every few seconds)
        List<FaultsCommand.Second> seconds = new ArrayList<>();
        long sent = 0;
        for (int s = 1; s <= 30; s++) {
            long thisSecond = s % 2 == 0 ? 126 : 172;
            sent += thisSecond;
            boolean down = s >= 11 && s <= 14;
            boolean draining = s == 15;
            seconds.add(new FaultsCommand.Second(s, down ? 0 : draining ? 700 : thisSecond, 5,
                    down ? Double.NaN : draining ? 900 : 10, sent));
        }
        // struck at 10.2; 11-14 nothing, 15 the backlog; 16 (126 sent, 126 back, fast) is back, though 16% under 150
        assertThat(FaultsCommand.recoveryMs(seconds, 10.2, 30, 150, 100)).isEqualTo(5_800);
    }

    @Test
    void theBaselineIsTheMedianP99OfTheSecondsBeforeTheFirstFaultAndABackToItCanComeBeforeTheRecovery() {
        List<FaultsCommand.Second> seconds = new ArrayList<>();
        double[] p99s = {900, 900, 900, 900, 900, 150, 120, 180, 140, 160, 5000, 5000, 170, 130, 60};
        for (int s = 1; s <= p99s.length; s++) {
            seconds.add(new FaultsCommand.Second(s, 100, 5, p99s[s - 1], s * 100L));
        }
        // the first five seconds are the start; 6..10 before the fault at 10.2: median of 150 120 180 140 160
        assertThat(FaultsCommand.baselineP99Ms(seconds, 10.2)).isEqualTo(150);
        assertThat(FaultsCommand.baselineP99Ms(seconds.subList(0, 5), 10.2)).isNaN();
        assertThat(FaultsCommand.recoveryMs(seconds, 10.2, 15, 100, 150)).as("second 14: p99 130 ms").isEqualTo(3_800);
        assertThat(FaultsCommand.recoveryMs(seconds, 10.2, 15, 100, 100)).as("second 15: p99 60 ms").isEqualTo(4_800);
    }

    @Test
    void theBaselineIsTheLastThirtySecondsBeforeTheFirstFaultNotAFreshStacksSlowStart() {
        List<FaultsCommand.Second> seconds = new ArrayList<>();
        for (int s = 1; s <= 90; s++) {
            double p99 = s <= 59 ? 20_000 : s % 2 == 0 ? 70 : 80; // a minute at seconds, then settled
            seconds.add(new FaultsCommand.Second(s, 100, 5, p99, s * 100L));
        }
        // 61..90 before the fault at 90.4: fifteen at 70, fifteen at 80; the slow start (and second 60) left out
        assertThat(FaultsCommand.baselineP99Ms(seconds, 90.4)).isEqualTo(80);
        for (int s = 61; s <= 76; s++) { // sixteen of the thirty slow
            seconds.set(s - 1, new FaultsCommand.Second(s, 100, 5, 20_000, s * 100L));
        }
        assertThat(FaultsCommand.baselineP99Ms(seconds, 90.4)).as("a slow window is a slow baseline").isEqualTo(20_000);
    }

    @Test
    void theReorderingsOfAFaultAreThoseFromTheSecondItStruckToTheNextFault() {
        List<FaultsCommand.Second> seconds = new ArrayList<>();
        long[] reordered = {0, 0, 2, 2, 5, 5, 9, 9};
        for (int s = 1; s <= reordered.length; s++) {
            seconds.add(new FaultsCommand.Second(s, 100, 5, 10, s * 100L, 0, reordered[s - 1]));
        }
        // struck at 2.5 (second 3 is its first), the next at 5.2 (second 6 is the next's first)
        assertThat(FaultsCommand.reorderedBetween(seconds, 2.5, 5.2)).isEqualTo(5);
        assertThat(FaultsCommand.reorderedBetween(seconds, 5.2, 8)).as("the last fault: to the end").isEqualTo(4);
        assertThat(FaultsCommand.reorderedBetween(seconds, 0.5, 2)).isZero();
    }

    @Test
    void theRunPassesOnlyWithNothingLostRepeatedLateOrOutOfOrderAndEveryFaultRecovered() {
        FaultsCommand.Outcome clean = new FaultsCommand.Outcome(21, 7, 1000, 0, 0, 0, 4, 9, 0, 0, 0, 12_000, true);
        assertThat(clean.passes()).as("duplicates before the dedupe and on the topic are counted, not errors").isTrue();
        assertThat(clean.resultLine()).startsWith("RESULT faults=21 kinds=7 sent=1000 lost=0 unsent=0 app_duplicates=0 "
                + "mn_duplicates_after_dedupe=0 expired_delivered=0 reordered=0 max_recovery_ms=12000");
        assertThat(new FaultsCommand.Outcome(21, 7, 1000, 1, 0, 0, 0, 0, 0, 0, 0, 12_000, true).passes()).isFalse();
        assertThat(new FaultsCommand.Outcome(21, 7, 1000, 0, 1, 0, 0, 0, 0, 0, 0, 12_000, true).passes()).isFalse();
        assertThat(new FaultsCommand.Outcome(21, 7, 1000, 0, 0, 1, 0, 0, 0, 0, 0, 12_000, true).passes()).isFalse();
        assertThat(new FaultsCommand.Outcome(21, 7, 1000, 0, 0, 0, 0, 0, 1, 0, 0, 12_000, true).passes()).isFalse();
        assertThat(new FaultsCommand.Outcome(21, 7, 1000, 0, 0, 0, 0, 0, 0, 1, 0, 12_000, true).passes()).isFalse();
        assertThat(new FaultsCommand.Outcome(21, 7, 1000, 0, 0, 0, 0, 0, 0, 0, 1, 12_000, true).passes()).isFalse();
        assertThat(new FaultsCommand.Outcome(21, 7, 1000, 0, 0, 0, 0, 0, 0, 0, 0, 45_000, false).passes()).isFalse();
    }
}
