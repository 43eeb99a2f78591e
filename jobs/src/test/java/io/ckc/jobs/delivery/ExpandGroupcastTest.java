package io.ckc.jobs.delivery;

import io.ckc.jobs.delivery.functions.ExpandGroupcast;
import io.ckc.jobs.delivery.functions.RouteToGateway;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class ExpandGroupcastTest {

    private static final String GROUP = "grid/cell-1";

    private KeyedTwoInputStreamOperatorTestHarness<String, MembershipChange, Groupcast, Unicast> harness;

    private void start(GroupcastSettings settings) throws Exception {
        harness = new KeyedTwoInputStreamOperatorTestHarness<>(
                new KeyedCoProcessOperator<>(new ExpandGroupcast(settings)),
                MembershipChange::group, Groupcast::group, Types.STRING);
        harness.open();
        harness.setProcessingTime(0);
    }

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
    }

    @Test
    void aGroupcastReachesEachMemberOnceWithItsIdTtlAndCreationTime() throws Exception {
        start(new GroupcastSettings(100, 0));
        join("mn-b");
        join("mn-a");
        join("mn-c", "grid/other");
        send(groupcast("g1", GROUP));
        assertThat(sent()).containsExactly(groupcast("g1", GROUP).toMember("mn-a"),
                groupcast("g1", GROUP).toMember("mn-b"));
        assertThat(sent()).allSatisfy(u -> {
            assertThat(u.messageId()).isEqualTo("g1");
            assertThat(u.ttlMs()).isEqualTo(5_000L);
            assertThat(u.createdAt()).isEqualTo(42L);
        });
    }

    @Test
    void joinLeaveAndMoveBetweenGroupsDecideWhoGetsIt() throws Exception {
        start(new GroupcastSettings(100, 0));
        join("mn-a");
        join("mn-b");
        leave("mn-a");
        leave("mn-b", GROUP);
        join("mn-b", "grid/cell-2"); // moved to another cell
        join("mn-c");
        send(groupcast("g1", GROUP));
        send(groupcast("g2", "grid/cell-2"));
        assertThat(sent()).extracting(Unicast::recipient, Unicast::messageId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("mn-c", "g1"),
                        org.assertj.core.groups.Tuple.tuple("mn-b", "g2"));
    }

    @Test
    void aLargeGroupGoesOutInMeteredStepsNotOneBurst() throws Exception {
        start(new GroupcastSettings(10, 100)); // 10 members a step, 100 a second: a step every 100 ms
        IntStream.range(0, 35).forEach(i -> join(String.format("mn-%02d", i)));
        send(groupcast("g1", GROUP));
        assertThat(sent()).hasSize(10);
        harness.setProcessingTime(99);
        assertThat(sent()).hasSize(10);
        harness.setProcessingTime(100);
        assertThat(sent()).hasSize(20);
        harness.setProcessingTime(200);
        harness.setProcessingTime(300);
        assertThat(sent()).extracting(Unicast::recipient).doesNotHaveDuplicates().hasSize(35);
        harness.setProcessingTime(400);
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void aMemberWhoLeavesBeforeItsStepIsSkippedAndLaterGroupcastsWaitTheirTurn() throws Exception {
        start(new GroupcastSettings(2, 0));
        join("mn-1");
        join("mn-2");
        join("mn-3");
        join("mn-4");
        send(groupcast("g1", GROUP));
        send(groupcast("g2", GROUP)); // waits for g1
        leave("mn-4");
        assertThat(sent()).extracting(Unicast::messageId).containsExactly("g1", "g1");
        harness.setProcessingTime(1);
        harness.setProcessingTime(2);
        harness.setProcessingTime(3);
        assertThat(sent()).extracting(u -> u.messageId() + ":" + u.recipient())
                .containsExactly("g1:mn-1", "g1:mn-2", "g1:mn-3", "g2:mn-1", "g2:mn-2", "g2:mn-3");
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void aMemberWhoLeavesAndComesBackBeforeItsStepGetsItAndALeaveDoesNotOutliveItsExpansion() throws Exception {
        start(new GroupcastSettings(2, 0));
        join("mn-1");
        join("mn-2");
        join("mn-3");
        join("mn-4");
        send(groupcast("g1", GROUP));
        leave("mn-3");
        join("mn-3");
        leave("mn-4");
        harness.setProcessingTime(1);
        assertThat(sent()).extracting(u -> u.messageId() + ":" + u.recipient())
                .containsExactly("g1:mn-1", "g1:mn-2", "g1:mn-3");
        join("mn-4");
        send(groupcast("g2", GROUP));
        harness.setProcessingTime(2);
        assertThat(sent()).extracting(u -> u.messageId() + ":" + u.recipient())
                .containsExactly("g1:mn-1", "g1:mn-2", "g1:mn-3", "g2:mn-1", "g2:mn-2", "g2:mn-3", "g2:mn-4");
    }

    @Test
    void aLargeGroupIsStoredOnceAsStepsThatAreRemovedAsTheyGoOut() throws Exception {
        start(new GroupcastSettings(10, 100)); // a step every 100 ms
        IntStream.range(0, 25).forEach(i -> join(String.format("mn-%02d", i)));
        send(groupcast("g1", GROUP));
        assertThat(sent()).hasSize(10);
        assertThat(storedSteps()).containsOnlyKeys(1, 2);
        assertThat(storedSteps().get(2)).containsExactly("mn-20", "mn-21", "mn-22", "mn-23", "mn-24");
        harness.setProcessingTime(100);
        assertThat(storedSteps()).containsOnlyKeys(2);
        harness.setProcessingTime(200);
        assertThat(sent()).extracting(Unicast::recipient).doesNotHaveDuplicates().hasSize(25);
        assertThat(storedSteps()).isEmpty();
    }

    /** The steps of the group's groupcast in progress still to send, as the operator keeps them. */
    private Map<Integer, List<String>> storedSteps() throws Exception {
        var operator = (KeyedCoProcessOperator<String, MembershipChange, Groupcast, Unicast>) harness.getOperator();
        operator.setCurrentKey(GROUP);
        Map<Integer, List<String>> steps = new HashMap<>();
        Iterable<Map.Entry<Integer, List<String>>> entries = operator.getPartitionedState(VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new MapStateDescriptor<>("groupcast-steps", Types.INT, Types.LIST(Types.STRING))).entries();
        if (entries != null) {
            entries.forEach(e -> steps.put(e.getKey(), e.getValue()));
        }
        return steps;
    }

    @Test
    void aGroupcastInProgressInASavepointOfTheVersionBeforeStepsReachesItsRemainingMembers() throws Exception {
        start(new GroupcastSettings(2, 0));
        join("mn-1");
        join("mn-2");
        join("mn-3");
        join("mn-4");
        // What the version before kept of a groupcast in progress: the groupcast, the members still to
        // reach as one list, and the time of its next step, with a timer standing there.
        var operator = (KeyedCoProcessOperator<String, MembershipChange, Groupcast, Unicast>) harness.getOperator();
        operator.setCurrentKey(GROUP);
        operator.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, new ValueStateDescriptor<>("groupcast-expanding", Groupcast.class))
                .update(groupcast("g1", GROUP));
        operator.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, new ListStateDescriptor<>("groupcast-remaining", Types.STRING))
                .update(List.of("mn-2", "mn-3", "mn-4"));
        operator.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, new ValueStateDescriptor<>("groupcast-next-step", Types.LONG)).update(1L);
        operator.getInternalTimerService("user-timers", VoidNamespaceSerializer.INSTANCE, operator)
                .registerProcessingTimeTimer(VoidNamespace.INSTANCE, 1L);

        harness.setProcessingTime(1);
        harness.setProcessingTime(2);
        assertThat(sent()).extracting(u -> u.messageId() + ":" + u.recipient())
                .containsExactly("g1:mn-2", "g1:mn-3", "g1:mn-4");
        assertThat(harness.numProcessingTimeTimers()).isZero();
        send(groupcast("g2", GROUP)); // and the next one starts afresh
        harness.setProcessingTime(3);
        assertThat(sent()).extracting(Unicast::messageId).filteredOn("g2"::equals).hasSize(4);
    }

    @Test
    void aGroupcastToAGroupWithoutMembersGetsADroppedReceipt() throws Exception {
        start(GroupcastSettings.DEFAULT);
        Groupcast lonely = new Groupcast("g1", "app", "grid/empty", new byte[] {1}, null, 42, true);
        send(lonely);
        assertThat(sent()).isEmpty();
        assertThat(harness.getSideOutput(RouteToGateway.RECEIPTS)).extracting(r -> r.getValue())
                .singleElement()
                .satisfies(r -> {
                    assertThat(r.outcome()).isEqualTo(Receipt.Outcome.DROPPED);
                    assertThat(r.recipient()).isEqualTo("grid/empty");
                });
    }

    private void join(String mnId) {
        join(mnId, GROUP);
    }

    private void join(String mnId, String group) {
        change(new MembershipChange(group, mnId, true));
    }

    private void leave(String mnId) {
        leave(mnId, GROUP);
    }

    private void leave(String mnId, String group) {
        change(new MembershipChange(group, mnId, false));
    }

    private void change(MembershipChange change) {
        try {
            harness.processElement1(new StreamRecord<>(change));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private void send(Groupcast groupcast) throws Exception {
        harness.processElement2(new StreamRecord<>(groupcast));
    }

    private List<Unicast> sent() {
        return harness.extractOutputValues();
    }

    private static Groupcast groupcast(String id, String group) {
        return new Groupcast(id, "app", group, new byte[] {7}, 5_000L, 42, false);
    }
}
