package io.ckc.jobs.groups;

import io.ckc.jobs.groups.functions.ApplyGroupSelection;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.udfs.GroupSelection;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

class ApplyGroupSelectionTest {

    private static final String A = "node-a";
    private static final String B = "node-b";

    @Test
    void anAdvertisementIsWrittenOnlyWhenTheNodesGroupsChange() throws Exception {
        try (var harness = harness(Selections.create("grid-cell", "1"))) {
            push(harness, report(A, 1, 10.2, 20.7, null, Map.of()));
            push(harness, report(A, 2, 10.9, 20.1, null, Map.of())); // same cell
            push(harness, report(B, 3, 10.5, 20.5, null, Map.of()));
            push(harness, report(A, 4, 11.1, 20.1, null, Map.of())); // moved to the next cell
            push(harness, report(A, 5, null, null, null, Map.of())); // no position: no group
            push(harness, report(A, 6, null, null, null, Map.of())); // still none
            assertThat(harness.extractOutputValues()).extracting(GroupAdvertisement::mnId, GroupAdvertisement::groups,
                    GroupAdvertisement::timestamp).containsExactly(
                    tuple(A, List.of("cell:10:20"), 1L),
                    tuple(B, List.of("cell:10:20"), 3L),
                    tuple(A, List.of("cell:11:20"), 4L),
                    tuple(A, List.of(), 5L));
            assertThat(harness.extractOutputValues()).allMatch(a -> a.definerId().equals("grid-cell"));
        }
    }

    @Test
    void aNodeThatWasNeverInAGroupProducesNothing() throws Exception {
        try (var harness = harness(Selections.create("battery-band", null))) {
            push(harness, report(A, 1, 1.0, 2.0, null, Map.of()));
            assertThat(harness.extractOutputValues()).isEmpty();
        }
    }

    @Test
    void definersSideBySideEachAdvertiseTheirOwnGroupsUnderTheirOwnKeys() throws Exception {
        ContextReport report = report(A, 7, 10.5, 20.5, 0.1, Map.of("role", "driver"));
        try (var grid = harness(Selections.create("grid-cell", "1"));
             var battery = harness(Selections.create("battery-band", null));
             var role = harness(Selections.create("attribute", "role"))) {
            push(grid, report);
            push(battery, report);
            push(role, report);
            List<GroupAdvertisement> all = new java.util.ArrayList<>();
            all.addAll(grid.extractOutputValues());
            all.addAll(battery.extractOutputValues());
            all.addAll(role.extractOutputValues());
            assertThat(all).extracting(GroupAdvertisement::key, GroupAdvertisement::groups).containsExactly(
                    tuple("grid-cell/" + A, List.of("cell:10:20")),
                    tuple("battery-band/" + A, List.of("battery:low")),
                    tuple("attribute-role/" + A, List.of("role:driver")));
        }
    }

    @Test
    void aSelectionThatThrowsIsCountedAndTheNodeKeepsItsGroups() throws Exception {
        try (var harness = harness(new Flaky())) {
            push(harness, report(A, 1, 1.0, 1.0, null, Map.of()));
            push(harness, report(A, 2, -1.0, 1.0, null, Map.of())); // throws
            push(harness, report(A, 3, 1.0, 1.0, null, Map.of())); // same groups as before: nothing new
            assertThat(harness.extractOutputValues()).extracting(GroupAdvertisement::timestamp).containsExactly(1L);
        }
    }

    @Test
    void anUnknownSelectionIsAClearErrorAtSubmission() {
        assertThatThrownBy(() -> Selections.create("com.example.Missing", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GroupSelection class");
        assertThatThrownBy(() -> Selections.create("battery-band", "0.9,0.1"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Throws for a negative latitude. */
    static final class Flaky implements GroupSelection {
        @Override
        public String definerId() {
            return "flaky";
        }

        @Override
        public Set<String> groupsOf(String mnId, Double latitude, Double longitude, Double battery,
                                    Map<String, String> attributes) {
            if (latitude < 0) {
                throw new IllegalStateException("southern hemisphere not supported");
            }
            return Set.of("north");
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, ContextReport, GroupAdvertisement> harness(
            GroupSelection selection) throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new ApplyGroupSelection(selection)), ContextReport::mnId, Types.STRING);
        harness.open();
        return harness;
    }

    private static void push(KeyedOneInputStreamOperatorTestHarness<String, ContextReport, GroupAdvertisement> harness,
                             ContextReport report) throws Exception {
        harness.processElement(new StreamRecord<>(report));
    }

    private static ContextReport report(String mn, long timestamp, Double latitude, Double longitude, Double battery,
                                        Map<String, String> attributes) {
        return new ContextReport(mn, "gw-1", timestamp, new Context(latitude, longitude, battery, attributes));
    }
}
