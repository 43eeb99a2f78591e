package io.ckc.jobs.delivery;

import io.ckc.jobs.delivery.functions.RouteToGateway;
import io.ckc.jobs.state.WriteBackOperator;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pending set across a rescale: messages in flight on one subtask's sessions, snapshotted, and the
 * state split over two subtasks (what a savepoint or an in-place rescale does). Each node's messages
 * are on the subtask that owns its key, and its next session gets every one, in order, once.
 */
class RouteToGatewayRescaleTest {

    private static final int MAX_PARALLELISM = 128;
    private static final int NODES = 40;
    private static final MtdSettings MTD = new MtdSettings(true, 60_000, null, 10, MtdSettings.DropPolicy.OLDEST);

    @Test
    void messagesInFlightSurviveASplitIntoTwoSubtasksAndGoToEachNodesNextSessionInOrder() throws Exception {
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            nodes.add(new UUID(7, i).toString());
        }
        OperatorSubtaskState snapshot;
        try (var before = harness(1, 0)) {
            before.open();
            for (String node : nodes) {
                push(before, MnEvent.connected(node, "gw-1", 10, 0));
                for (int seq = 0; seq < 3; seq++) {
                    push(before, unicast(node, seq));
                }
                push(before, DeliveryInput.delivered(Receipt.of(unicast(node, 0), Receipt.Outcome.DELIVERED, "gw-1",
                        null, 0)));
            }
            assertThat(before.extractOutputValues()).hasSize(NODES * 3);
            snapshot = before.snapshot(1, 1);
        }

        List<String> resent = new ArrayList<>();
        int[] keysPerSubtask = new int[2];
        for (int subtask = 0; subtask < 2; subtask++) {
            OperatorSubtaskState part = AbstractStreamOperatorTestHarness.repartitionOperatorState(snapshot,
                    MAX_PARALLELISM, 1, 2, subtask);
            try (var after = harness(2, subtask)) {
                after.setup();
                after.initializeState(part);
                after.open();
                for (String node : nodes) {
                    if (KeyGroupRangeAssignment.assignKeyToParallelOperator(node, MAX_PARALLELISM, 2) == subtask) {
                        keysPerSubtask[subtask]++;
                        push(after, MnEvent.connected(node, "gw-2", 11, 1)); // gw-1 died: no receipts from it
                    }
                }
                for (Outbound out : after.extractOutputValues()) {
                    assertThat(out.gatewayId()).isEqualTo("gw-2");
                    resent.add(out.unicast().recipient() + ":" + out.unicast().messageId());
                }
            }
        }
        assertThat(keysPerSubtask).as("both subtasks own nodes").doesNotContain(0);
        List<String> expected = new ArrayList<>();
        for (String node : nodes) {
            expected.add(node + ":" + node + "-1"); // the first was acknowledged before the snapshot
            expected.add(node + ":" + node + "-2");
        }
        assertThat(resent).as("every unacknowledged message once, each node's in order")
                .containsExactlyInAnyOrderElementsOf(expected);
        for (String node : nodes) {
            assertThat(resent.stream().filter(r -> r.startsWith(node + ":")).toList())
                    .containsExactly(node + ":" + node + "-1", node + ":" + node + "-2");
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, DeliveryInput, Outbound> harness(int parallelism,
                                                                                                  int subtask)
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new WriteBackOperator<>(new RouteToGateway(MTD, 3_600_000)), DeliveryInput::mnId, Types.STRING,
                MAX_PARALLELISM, parallelism, subtask);
    }

    private static void push(KeyedOneInputStreamOperatorTestHarness<String, DeliveryInput, Outbound> harness,
                             MnEvent event) throws Exception {
        push(harness, DeliveryInput.of(event));
    }

    private static void push(KeyedOneInputStreamOperatorTestHarness<String, DeliveryInput, Outbound> harness,
                             Unicast unicast) throws Exception {
        push(harness, DeliveryInput.of(unicast));
    }

    private static void push(KeyedOneInputStreamOperatorTestHarness<String, DeliveryInput, Outbound> harness,
                             DeliveryInput input) throws Exception {
        harness.processElement(new StreamRecord<>(input));
    }

    private static Unicast unicast(String node, int seq) {
        return new Unicast(node + "-" + seq, "app", node, new byte[] {1}, null, seq, false);
    }
}
