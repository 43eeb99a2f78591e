package io.ckc.jobs.delivery;

import io.ckc.jobs.delivery.functions.TrackMemberships;
import io.ckc.protocol.records.GroupAdvertisement;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TrackMembershipsTest {

    private static final String MN = "mn-1";

    private KeyedOneInputStreamOperatorTestHarness<String, GroupAdvertisement, MembershipChange> harness;

    @BeforeEach
    void setUp() throws Exception {
        harness = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(new TrackMemberships()),
                GroupAdvertisement::key, Types.STRING);
        harness.open();
    }

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
    }

    @Test
    void aFirstAdvertisementJoinsEveryGroupUnderItsDefinersName() throws Exception {
        push(new GroupAdvertisement("grid", MN, List.of("a", "b"), 1));
        assertThat(changes()).containsExactly(join("grid/a"), join("grid/b"));
    }

    @Test
    void aMoveBetweenGroupsLeavesTheOldAndJoinsTheNewOnly() throws Exception {
        push(new GroupAdvertisement("grid", MN, List.of("a", "b"), 1));
        harness.getOutput().clear();
        push(new GroupAdvertisement("grid", MN, List.of("b", "c"), 2));
        assertThat(changes()).containsExactly(leave("grid/a"), join("grid/c"));
    }

    @Test
    void aRepeatedAdvertisementChangesNothing() throws Exception {
        push(new GroupAdvertisement("grid", MN, List.of("a"), 1));
        harness.getOutput().clear();
        push(new GroupAdvertisement("grid", MN, List.of("a"), 2));
        assertThat(changes()).isEmpty();
    }

    @Test
    void anEmptyAdvertisementOrADeletedKeyLeavesEverythingAndClearsState() throws Exception {
        push(new GroupAdvertisement("grid", MN, List.of("a", "b"), 1));
        push(new GroupAdvertisement("battery", MN, List.of("low"), 1));
        harness.getOutput().clear();
        push(new GroupAdvertisement("grid", MN, List.of(), 2));
        push(GroupAdvertisement.ofKey("battery/" + MN, Long.MAX_VALUE));
        assertThat(changes()).containsExactly(leave("grid/a"), leave("grid/b"), leave("battery/low"));
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    @Test
    void definersKeepTheirOwnMembershipsOfOneNode() throws Exception {
        push(new GroupAdvertisement("grid", MN, List.of("a"), 1));
        push(new GroupAdvertisement("battery", MN, List.of("a"), 1));
        harness.getOutput().clear();
        push(new GroupAdvertisement("grid", MN, List.of(), 2));
        assertThat(changes()).containsExactly(leave("grid/a")); // battery/a stays
    }

    @Test
    void anOlderAdvertisementThanTheCurrentIsIgnored() throws Exception {
        push(new GroupAdvertisement("grid", MN, List.of("b"), 5));
        harness.getOutput().clear();
        push(new GroupAdvertisement("grid", MN, List.of("a"), 4));
        assertThat(changes()).isEmpty();
    }

    @Test
    void aLeasedMembershipLapsesAtItsDeadlineUnlessRenewed() throws Exception {
        harness.setProcessingTime(1_000);
        push(new GroupAdvertisement("zone", MN, List.of("z1"), 1_000, 2_000L));
        push(new GroupAdvertisement("zone", MN, List.of("z1"), 1_500, 3_000L)); // renewed
        harness.getOutput().clear();
        harness.setProcessingTime(2_500);
        assertThat(changes()).isEmpty();
        harness.setProcessingTime(3_000);
        assertThat(changes()).containsExactly(leave("zone/z1"));
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    private void push(GroupAdvertisement advertisement) throws Exception {
        harness.processElement(new StreamRecord<>(advertisement));
    }

    private List<MembershipChange> changes() {
        return harness.extractOutputValues();
    }

    private static MembershipChange join(String group) {
        return new MembershipChange(group, MN, true);
    }

    private static MembershipChange leave(String group) {
        return new MembershipChange(group, MN, false);
    }
}
