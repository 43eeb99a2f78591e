package io.ckc.jobs.delivery;

import io.ckc.jobs.delivery.functions.RouteToGateway;
import io.ckc.jobs.state.WriteBackOperator;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class RouteToGatewayTest {

    private static final String MN = "6f1c3a56-0000-4000-8000-000000000001";
    private static final long DEFAULT_TTL = 60_000;
    private static final long RETENTION = 3_600_000;
    private static final int MAX_BUFFERED = 3;
    private static final MtdSettings MTD = new MtdSettings(true, DEFAULT_TTL, null, MAX_BUFFERED,
            MtdSettings.DropPolicy.OLDEST);

    private KeyedOneInputStreamOperatorTestHarness<String, DeliveryInput, Outbound> harness;
    private long checkpoints;

    @BeforeEach
    void setUp() throws Exception {
        start(MTD);
    }

    private void start(MtdSettings settings) throws Exception {
        if (harness != null) {
            harness.close();
        }
        harness = newHarness(settings);
        harness.open();
    }

    /** What a restart from the last checkpoint does: a new instance of the function on the state as snapshotted. */
    private void restartFromACheckpoint() throws Exception {
        OperatorSubtaskState checkpoint = harness.snapshot(++checkpoints, 0);
        harness.close();
        harness = newHarness(MTD);
        harness.setup();
        harness.initializeState(checkpoint);
        harness.open();
    }

    /** The entries in the state backend as a checkpoint taken now finds them (the operator holds them until one). */
    private int stateEntries() throws Exception {
        harness.snapshot(++checkpoints, 0);
        return harness.numKeyedStateEntries();
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, DeliveryInput, Outbound> newHarness(
            MtdSettings settings) throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new WriteBackOperator<>(new RouteToGateway(settings, RETENTION)),
                DeliveryInput::mnId, Types.STRING);
    }

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
    }

    @Test
    void aUnicastGoesToTheGatewayOfTheCurrentSession() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1"));
        assertThat(outputs()).containsExactly(new Outbound("gw-1", 10, unicast("m1"), DEFAULT_TTL));
    }

    @Test
    void aReconnectToAnotherGatewayMovesTheRoute() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1"));
        push(delivered("m1"));
        push(connected("gw-2", 11));
        push(unicast("m2"));
        assertThat(outputs()).extracting(Outbound::gatewayId).containsExactly("gw-1", "gw-2");
    }

    @Test
    void whatTheLastSessionDidNotAcknowledgeGoesToTheNewOneInOrderBeforeNewerMessages() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1", 1, null, false));
        push(unicast("m2", 2, null, false));
        push(unicast("m3", 3, null, false));
        push(delivered("m1"));
        // gw-1 dies: no disconnect, no unsent. The node opens a session on gw-2.
        push(connected("gw-2", 11));
        push(unicast("m4", 4, null, false));
        assertThat(outputs()).extracting(o -> o.gatewayId() + ":" + o.unicast().messageId())
                .containsExactly("gw-1:m1", "gw-1:m2", "gw-1:m3", "gw-2:m2", "gw-2:m3", "gw-2:m4");
        assertThat(outputs()).filteredOn(o -> o.gatewayId().equals("gw-2")).extracting(Outbound::epoch)
                .containsOnly(11L);
    }

    @Test
    void inFlightAndWaitingMessagesGoToTheNextSessionTogetherInTheirOriginalOrder() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1", 1, null, false));
        push(disconnected("gw-1", 10)); // a clean end, but its unsent record has not come yet
        push(unicast("m2", 2, null, false));
        push(connected("gw-1", 11));
        assertThat(outputs()).extracting(o -> o.epoch() + ":" + o.unicast().messageId())
                .containsExactly("10:m1", "11:m1", "11:m2");
        push(unsent("m1", "gw-1", 10)); // late: m1 is on its way on the newer session already
        assertThat(outputs()).hasSize(3);
    }

    @Test
    void aRepeatedConnectOfTheSameSessionSendsNothingTwice() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1"));
        push(connected("gw-1", 10));
        assertThat(outputs()).extracting(o -> o.unicast().messageId()).containsExactly("m1");
    }

    @Test
    void anAcknowledgementEndsThePendingMessageAndTheSenderWhoAskedHearsOfIt() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1", 0, null, true));
        push(unicast("m2", 0, null, false));
        assertThat(stateEntries()).isEqualTo(3); // route, the pending map, its backlog
        push(delivered("m1"));
        push(delivered("m2"));
        push(delivered("m2")); // a duplicate's acknowledgement: matches nothing
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome, Receipt::gatewayId)
                .containsExactly(tuple("m1", Receipt.Outcome.DELIVERED, "gw-1"));
        push(connected("gw-2", 11));
        assertThat(outputs()).hasSize(2); // nothing pending to send again

        harness.setProcessingTime(DEFAULT_TTL + RouteToGateway.ACK_GRACE_MS);
        assertThat(stateEntries()).isEqualTo(1); // the route only
        assertThat(harness.numProcessingTimeTimers()).isZero();
        assertThat(receipts()).hasSize(1);
    }

    @Test
    void aMessageInFlightThatIsNeverAcknowledgedExpiresAfterItsGraceAndALateAcknowledgementIsIgnored()
            throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1", 0, 1_000L, true));
        harness.setProcessingTime(1_000 + RouteToGateway.ACK_GRACE_MS - 1);
        assertThat(receipts()).isEmpty();
        harness.setProcessingTime(1_000 + RouteToGateway.ACK_GRACE_MS);
        assertThat(receipts()).extracting(Receipt::outcome).containsExactly(Receipt.Outcome.EXPIRED);
        push(delivered("m1"));
        assertThat(receipts()).hasSize(1);
        assertThat(stateEntries()).isEqualTo(1);
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void pastItsDeadlineAMessageThatMayHaveReachedTheNodeGoesToItsNextSessionAsAQuestionAndTheAnswerDecides()
            throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1", 0, 1_000L, true));
        push(unicast("m2", 0, 1_000L, true));
        push(unicast("m3", 0, 1_000L, true));
        push(DeliveryInput.of(new UnsentMessage(unicast("m3", 0, 1_000L, true), "gw-1", 10,
                UnsentMessage.Reason.CONNECTION_BROKEN, 500))); // gw-1 says the node never had m3
        harness.setProcessingTime(1_000);
        push(connected("gw-2", 11));
        assertThat(outputs()).extracting(o -> o.gatewayId() + ":" + o.unicast().messageId() + ":" + o.expiresAt())
                .as("the gateway sends no content past the deadline: it asks the node")
                .containsExactly("gw-1:m1:1000", "gw-1:m2:1000", "gw-1:m3:1000", "gw-2:m1:1000", "gw-2:m2:1000");
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome)
                .containsExactly(tuple("m3", Receipt.Outcome.EXPIRED));

        push(delivered("m1")); // the node had it
        push(DeliveryInput.of(new UnsentMessage(unicast("m2", 0, 1_000L, true), "gw-2", 11,
                UnsentMessage.Reason.EXPIRED, 1_000))); // the node never had it
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome).containsExactly(
                tuple("m3", Receipt.Outcome.EXPIRED), tuple("m1", Receipt.Outcome.DELIVERED),
                tuple("m2", Receipt.Outcome.EXPIRED));
        harness.setProcessingTime(1_000 + RouteToGateway.ACK_GRACE_MS);
        assertThat(stateEntries()).isEqualTo(1); // the route only
        assertThat(receipts()).hasSize(3);
    }

    @Test
    void afterARestoreNothingExpiresBeforeTheReplayedReceiptsCouldBeReadAndThenWhatIsLeftDoes() throws Exception {
        push(connected("gw-1", 10));
        push(disconnected("gw-1", 10));
        push(unicast("had-it", 0, 5_000L, true));
        push(unicast("never-had-it", 0, 5_000L, true));
        restartFromACheckpoint(); // after the checkpoint the node came back and got "had-it"; then the job failed
        long restoredAt = 30_000;
        harness.setProcessingTime(restoredAt); // the deadlines' timers are due at once
        assertThat(receipts()).as("the job does not know what it did after its checkpoint").isEmpty();

        push(delivered("had-it")); // read again from ckc.delivered
        harness.setProcessingTime(restoredAt + RouteToGateway.ACK_GRACE_MS - 1);
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome)
                .containsExactly(tuple("had-it", Receipt.Outcome.DELIVERED));
        harness.setProcessingTime(restoredAt + RouteToGateway.ACK_GRACE_MS);
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome).containsExactly(
                tuple("had-it", Receipt.Outcome.DELIVERED), tuple("never-had-it", Receipt.Outcome.EXPIRED));
        assertThat(outputs()).isEmpty();
        assertThat(stateEntries()).isEqualTo(2); // the closed route and when to forget it
        assertThat(harness.numProcessingTimeTimers()).isOne(); // the route's retention
    }

    @Test
    void anExpiryNoOneCouldAskTheNodeAboutTellsTheSenderItMayHaveArrived() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("asked", 0, 5_000L, true));
        push(unicast("unasked", 0, 5_000L, true));
        push(disconnected("gw-1", 10)); // in flight on gw-1 when its session ended
        harness.setProcessingTime(30_000);
        push(connected("gw-2", 11));
        push(DeliveryInput.of(new UnsentMessage(unicast("asked", 0, 5_000L, true), "gw-2", 11,
                UnsentMessage.Reason.EXPIRED, 30_000))); // a reliable-UDP node said it never had it
        push(DeliveryInput.of(new UnsentMessage(unicast("unasked", 0, 5_000L, true), "gw-2", 11,
                UnsentMessage.Reason.EXPIRED, 30_000, true))); // an MQTT device, which cannot be asked
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome, Receipt::detail).containsExactly(
                tuple("asked", Receipt.Outcome.EXPIRED, "expired before gateway gw-2 could send it"),
                tuple("unasked", Receipt.Outcome.EXPIRED, "expired before gateway gw-2 could send it again; it may "
                        + "have reached the node on an earlier session, whose acknowledgement was lost (the node's "
                        + "protocol cannot be asked)"));
    }

    @Test
    void afterARestoreAMessageWaitingPastItsDeadlineGoesToTheNodesNextSessionAsAQuestion() throws Exception {
        push(connected("gw-1", 10));
        push(disconnected("gw-1", 10));
        push(unicast("had-it", 0, 5_000L, true));
        push(unicast("never-had-it", 0, 5_000L, true));
        restartFromACheckpoint();
        harness.setProcessingTime(30_000);
        push(connected("gw-2", 11)); // read again: the session in which the node got "had-it" before the failure
        assertThat(outputs()).extracting(o -> o.gatewayId() + ":" + o.unicast().messageId() + ":" + o.expiresAt())
                .as("the gateway sends no content past the deadline: it asks the node")
                .containsExactly("gw-2:had-it:5000", "gw-2:never-had-it:5000");
        push(delivered("had-it"));
        push(DeliveryInput.of(new UnsentMessage(unicast("never-had-it", 0, 5_000L, true), "gw-2", 11,
                UnsentMessage.Reason.EXPIRED, 30_000)));
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome).containsExactly(
                tuple("had-it", Receipt.Outcome.DELIVERED), tuple("never-had-it", Receipt.Outcome.EXPIRED));
        harness.setProcessingTime(30_000 + RouteToGateway.ACK_GRACE_MS);
        assertThat(receipts()).hasSize(2);
        assertThat(stateEntries()).isEqualTo(1); // the route only
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void afterARestoreAMessageReadAgainPastItsDeadlineGoesToItsConnectedNodeAsAQuestion() throws Exception {
        push(connected("gw-1", 10));
        restartFromACheckpoint();
        long restoredAt = 20_000;
        harness.setProcessingTime(restoredAt);
        push(unicast("m1", 0, 5_000L, true)); // routed after the checkpoint, before the failure: read again
        assertThat(outputs()).as("the gateway sends no content past the deadline: it asks the node")
                .containsExactly(new Outbound("gw-1", 10, unicast("m1", 0, 5_000L, true), 5_000));
        assertThat(receipts()).isEmpty();
        push(delivered("m1"));
        assertThat(receipts()).extracting(Receipt::outcome).containsExactly(Receipt.Outcome.DELIVERED);

        harness.setProcessingTime(restoredAt + RouteToGateway.ACK_GRACE_MS);
        push(unicast("m2", 0, 5_000L, true)); // recovered long ago: it could not have been routed before
        assertThat(outputs()).hasSize(1);
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome).containsExactly(
                tuple("m1", Receipt.Outcome.DELIVERED), tuple("m2", Receipt.Outcome.EXPIRED));
    }

    @Test
    void theBoundCountsMessagesInFlightAndAFullSetTellsTheSenderInsteadOfDroppingSilently() throws Exception {
        push(connected("gw-1", 10));
        for (int i = 1; i <= MAX_BUFFERED + 1; i++) {
            push(unicast("m" + i, i, null, true));
        }
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome)
                .containsExactly(tuple("m1", Receipt.Outcome.DROPPED));
        push(connected("gw-2", 11));
        assertThat(outputs()).filteredOn(o -> o.gatewayId().equals("gw-2")).extracting(o -> o.unicast().messageId())
                .containsExactly("m2", "m3", "m4");
    }

    @Test
    void withTheMtdOffWhatAnOlderSessionHeldIsDroppedNotSentAgain() throws Exception {
        start(MTD.withEnabled(false));
        push(connected("gw-1", 10));
        push(unicast("m1", 0, null, true));
        push(connected("gw-2", 11));
        assertThat(outputs()).extracting(Outbound::gatewayId).containsExactly("gw-1");
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome)
                .containsExactly(tuple("m1", Receipt.Outcome.DROPPED));
    }

    @Test
    void aStaleDisconnectFromTheOldGatewayAfterAHandoverIsIgnored() throws Exception {
        push(connected("gw-1", 10));
        push(connected("gw-2", 11));
        push(disconnected("gw-1", 10)); // late, from the old gateway
        push(unicast("m1"));
        assertThat(outputs()).containsExactly(new Outbound("gw-2", 11, unicast("m1"), DEFAULT_TTL));
    }

    @Test
    void aConnectWithAnOlderEpochDoesNotReplaceTheRoute() throws Exception {
        push(connected("gw-2", 11));
        push(connected("gw-1", 10));
        push(unicast("m1"));
        assertThat(outputs()).extracting(Outbound::gatewayId).containsExactly("gw-2");
    }

    @Test
    void unicastsForADisconnectedNodeAreBufferedAndReplayedInOrderBeforeNewerOnes() throws Exception {
        push(connected("gw-1", 10));
        push(disconnected("gw-1", 10));
        push(unicast("m1"));
        push(unicast("m2"));
        assertThat(outputs()).isEmpty();
        assertThat(harness.numProcessingTimeTimers()).isEqualTo(2); // earliest deadline + route retention
        push(connected("gw-3", 11));
        push(unicast("m3"));
        assertThat(outputs()).extracting(o -> o.unicast().messageId()).containsExactly("m1", "m2", "m3");
        assertThat(outputs()).extracting(Outbound::gatewayId).containsOnly("gw-3");
        assertThat(harness.numProcessingTimeTimers()).isEqualTo(1); // the pending messages' expiry only
    }

    @Test
    void eachBufferedMessageExpiresAtItsOwnDeadlineAndStateReturnsToZero() throws Exception {
        push(unicast("short", 0, 1_000L, true));
        push(unicast("long", 0, 5_000L, true));
        assertThat(stateEntries()).isEqualTo(2); // the pending map, its backlog
        assertThat(harness.numProcessingTimeTimers()).isEqualTo(1);

        harness.setProcessingTime(999);
        assertThat(receipts()).isEmpty();
        harness.setProcessingTime(1_000);
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome)
                .containsExactly(tuple("short", Receipt.Outcome.EXPIRED));
        assertThat(harness.numProcessingTimeTimers()).isEqualTo(1); // now at the long one's deadline

        harness.setProcessingTime(5_000);
        assertThat(receipts()).extracting(Receipt::messageId).containsExactly("short", "long");
        assertThat(outputs()).isEmpty();
        assertThat(stateEntries()).isZero();
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void theTtlIsCheckedAgainAtReplayAndOnlyLiveMessagesAreSentWithTheirDeadline() throws Exception {
        push(connected("gw-1", 10));
        push(disconnected("gw-1", 10));
        push(unicast("a", 0, 2_000L, true));
        push(unicast("b", 0, 9_000L, true));
        // The timer for "a" has not fired yet (the reconnect comes in the same millisecond as its deadline).
        harness.setProcessingTime(1_999);
        push(connected("gw-1", 11));
        harness.setProcessingTime(2_000);
        assertThat(outputs()).extracting(o -> o.unicast().messageId()).containsExactly("a", "b");
        assertThat(outputs()).extracting(Outbound::expiresAt).containsExactly(2_000L, 9_000L);

        // Sent on the old session but never acknowledged, and past its TTL when the gateway gives it back:
        // neither the newer session nor the buffer gets it.
        push(DeliveryInput.of(new UnsentMessage(unicast("a", 0, 2_000L, true), "gw-1", 11,
                UnsentMessage.Reason.CONNECTION_BROKEN, 1_500)));
        push(disconnected("gw-1", 11));
        push(connected("gw-2", 12));
        assertThat(outputs()).extracting(o -> o.gatewayId() + ":" + o.unicast().messageId())
                .containsExactly("gw-1:a", "gw-1:b", "gw-2:b");
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome)
                .containsExactly(tuple("a", Receipt.Outcome.EXPIRED));
    }

    @Test
    void aMessageAlreadyPastItsTtlIsNeverRouted() throws Exception {
        harness.setProcessingTime(10_000);
        push(connected("gw-1", 10));
        push(unicast("late", 0, 5_000L, true));
        assertThat(outputs()).isEmpty();
        assertThat(receipts()).extracting(Receipt::outcome).containsExactly(Receipt.Outcome.EXPIRED);
    }

    @Test
    void aForcedTtlOverridesTheSendersAndTheDefaultAppliesWhenTheSenderGaveNone() {
        MtdSettings forced = new MtdSettings(true, DEFAULT_TTL, 500L, MAX_BUFFERED, MtdSettings.DropPolicy.OLDEST);
        assertThat(forced.expiresAt(unicast("x", 100, 9_000L, false))).isEqualTo(600);
        assertThat(MTD.expiresAt(unicast("y", 100, 9_000L, false))).isEqualTo(9_100);
        assertThat(MTD.expiresAt(unicast("z", 100, null, false))).isEqualTo(100 + DEFAULT_TTL);
    }

    @Test
    void aFullBufferDropsTheOldestByDefaultAndTellsItsSender() throws Exception {
        for (int i = 1; i <= MAX_BUFFERED + 1; i++) {
            push(unicast("m" + i, i, null, true));
        }
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome)
                .containsExactly(tuple("m1", Receipt.Outcome.DROPPED));
        push(connected("gw-1", 10));
        assertThat(outputs()).extracting(o -> o.unicast().messageId()).containsExactly("m2", "m3", "m4");
    }

    @Test
    void theNewestPolicyKeepsTheBufferAndDropsTheArrival() throws Exception {
        start(new MtdSettings(true, DEFAULT_TTL, null, MAX_BUFFERED, MtdSettings.DropPolicy.NEWEST));
        for (int i = 1; i <= MAX_BUFFERED + 1; i++) {
            push(unicast("m" + i, i, null, true));
        }
        assertThat(receipts()).extracting(Receipt::messageId).containsExactly("m4");
        push(connected("gw-1", 10));
        assertThat(outputs()).extracting(o -> o.unicast().messageId()).containsExactly("m1", "m2", "m3");
    }

    @Test
    void withTheMtdOffAMessageForADisconnectedNodeIsDroppedAtOnce() throws Exception {
        start(MTD.withEnabled(false));
        push(unicast("m1", 0, null, true));
        push(unicast("m2", 0, null, false)); // no receipt asked: counted only
        push(connected("gw-1", 10));
        assertThat(outputs()).isEmpty();
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome)
                .containsExactly(tuple("m1", Receipt.Outcome.DROPPED));
        assertThat(stateEntries()).isEqualTo(1); // the route only
    }

    @Test
    void aGatewayThatFoundAMessageExpiredMakesAnExpiredReceipt() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1", 0, 10L, true));
        push(DeliveryInput.of(new UnsentMessage(unicast("m1", 0, 10L, true), "gw-1", 10, UnsentMessage.Reason.EXPIRED, 5)));
        assertThat(outputs()).hasSize(1);
        assertThat(receipts()).extracting(Receipt::outcome).containsExactly(Receipt.Outcome.EXPIRED);
    }

    @Test
    void aFailedMessageThatComesBackLateIsReplayedBeforeNewerBufferedOnes() throws Exception {
        push(connected("gw-1", 10));
        push(disconnected("gw-1", 10));
        push(unicast("new", 200, null, false));
        push(DeliveryInput.of(new UnsentMessage(unicast("old", 100, null, false), "gw-1", 10,
                UnsentMessage.Reason.CONNECTION_BROKEN, 0)));
        push(connected("gw-1", 11));
        assertThat(outputs()).extracting(o -> o.unicast().messageId()).containsExactly("old", "new");
    }

    @Test
    void aMessageItsSessionSentButNeverSawAcknowledgedIsAskedForPastItsDeadlineNotExpired() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1", 0, 1_000L, true));
        push(DeliveryInput.of(new UnsentMessage(unicast("m1", 0, 1_000L, true), "gw-1", 10,
                UnsentMessage.Reason.CONNECTION_BROKEN, 500, true))); // sent: the node's ack may have been lost
        harness.setProcessingTime(1_000);
        assertThat(receipts()).as("not at its deadline: the node may have it").isEmpty();
        push(connected("gw-2", 11));
        assertThat(outputs()).extracting(o -> o.gatewayId() + ":" + o.unicast().messageId())
                .containsExactly("gw-1:m1", "gw-2:m1");
        push(delivered("m1"));
        assertThat(receipts()).extracting(Receipt::outcome).containsExactly(Receipt.Outcome.DELIVERED);
    }

    @Test
    void anUnsentRecordOfAMessageAlreadySettledAndPastItsDeadlineEndsWithoutAReceipt() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1", 0, 1_000L, true));
        push(delivered("m1"));
        harness.setProcessingTime(2_000);
        push(DeliveryInput.of(new UnsentMessage(unicast("m1", 0, 1_000L, true), "gw-1", 10,
                UnsentMessage.Reason.SESSION_REPLACED, 2_000)));
        assertThat(receipts()).extracting(Receipt::outcome).containsExactly(Receipt.Outcome.DELIVERED);
        assertThat(outputs()).hasSize(1);
    }

    @Test
    void anUnsentCopyOfARoutedMessageAlreadyDeliveredIsNotTakenInAgainButABroadcastsCopyIs() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1", 0, 5_000L, true));
        push(delivered("m1")); // the node had it: its receipt came before the unsent of a copy
        push(disconnected("gw-1", 10));
        push(DeliveryInput.of(new UnsentMessage(unicast("m1", 0, 5_000L, true), "gw-1", 10,
                UnsentMessage.Reason.SESSION_REPLACED, 100, false, true)));
        push(DeliveryInput.of(new UnsentMessage(unicast("broadcast-copy", 0, 5_000L, true), "gw-1", 10,
                UnsentMessage.Reason.CONNECTION_BROKEN, 100, true, false)));
        harness.setProcessingTime(5_000);
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome).containsExactly(
                tuple("m1", Receipt.Outcome.DELIVERED), tuple("broadcast-copy", Receipt.Outcome.EXPIRED));
    }

    @Test
    void aGatewayDeclaredLostStillGetsMessagesAndWhatIsPendingGoesToTheNodesNextSessionInOrder() throws Exception {
        push(connected("gw-1", 10, 1_000));
        push(unicast("m1", 1, null, false));
        push(gatewayLost("gw-1", 5_000)); // its last report came after the session opened
        push(unicast("m2", 2, null, false));
        assertThat(outputs()).extracting(o -> o.gatewayId() + ":" + o.unicast().messageId())
                .as("the declaration may be wrong: m2 goes there too, and waits in state").containsExactly("gw-1:m1",
                        "gw-1:m2");
        push(connected("gw-2", 11, 6_000));
        assertThat(outputs()).extracting(o -> o.gatewayId() + ":" + o.unicast().messageId())
                .containsExactly("gw-1:m1", "gw-1:m2", "gw-2:m1", "gw-2:m2");
        push(delivered("m1"));
        push(delivered("m2"));
        push(disconnected("gw-2", 11));
        harness.setProcessingTime(RETENTION);
        assertThat(stateEntries()).isZero();
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void aGatewayWronglyDeclaredLostKeepsItsNodesRouteOnceItDeliversAgain() throws Exception {
        push(connected("gw-1", 10, 1_000));
        push(gatewayLost("gw-1", 5_000)); // cut off from Kafka for a while, it served its nodes all along
        push(unicast("m1", 1, null, false));
        push(delivered("m1"));
        harness.setProcessingTime(RETENTION);
        push(unicast("m2", RETENTION, null, false));
        assertThat(outputs()).extracting(o -> o.gatewayId() + ":" + o.unicast().messageId())
                .containsExactly("gw-1:m1", "gw-1:m2");
        assertThat(harness.numProcessingTimeTimers()).as("m2's expiry only").isEqualTo(1);
    }

    @Test
    void aNodeOfALostGatewayThatNeverComesBackHasItsRouteForgottenAndWhatIsPendingExpires() throws Exception {
        push(connected("gw-1", 10, 1_000));
        push(unicast("m1", 0, null, true));
        push(gatewayLost("gw-1", 5_000));
        harness.setProcessingTime(RETENTION);
        assertThat(receipts()).extracting(Receipt::messageId, Receipt::outcome)
                .containsExactly(tuple("m1", Receipt.Outcome.EXPIRED));
        assertThat(stateEntries()).isZero();
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void aLossDeclaredForAGatewayTheNodeLeftOrOfAnOlderIncarnationChangesNothing() throws Exception {
        push(connected("gw-1", 10, 9_000)); // opened on gw-1 restarted under its id, after its last report before
        push(gatewayLost("gw-1", 5_000));
        push(unicast("m1"));
        push(connected("gw-2", 11, 9_500));
        push(gatewayLost("gw-1", 10_000)); // the node is on gw-2 now
        push(unicast("m2"));
        assertThat(outputs()).extracting(o -> o.gatewayId() + ":" + o.unicast().messageId())
                .containsExactly("gw-1:m1", "gw-2:m1", "gw-2:m2");
    }

    @Test
    void theRouteOfANodeThatStaysGoneIsForgottenAfterTheRetention() throws Exception {
        push(connected("gw-1", 10));
        push(disconnected("gw-1", 10));
        assertThat(stateEntries()).isEqualTo(2); // route + forget time
        harness.setProcessingTime(RETENTION);
        assertThat(stateEntries()).isZero();
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void aReconnectBeforeTheRetentionKeepsTheRouteAndCancelsTheTimer() throws Exception {
        push(connected("gw-1", 10));
        push(disconnected("gw-1", 10));
        push(connected("gw-1", 11));
        assertThat(harness.numProcessingTimeTimers()).isZero();
        harness.setProcessingTime(RETENTION);
        push(unicast("m1", RETENTION, null, false));
        assertThat(outputs()).extracting(Outbound::gatewayId).containsExactly("gw-1");
    }

    @Test
    void aMessageTheOldGatewayCouldNotSendGoesToTheNewSession() throws Exception {
        push(connected("gw-1", 10));
        push(connected("gw-2", 11)); // handed over
        push(unsent("m1", "gw-1", 10));
        assertThat(outputs()).containsExactly(new Outbound("gw-2", 11, unicast("m1"), DEFAULT_TTL));
    }

    @Test
    void anUnsentMessageOfTheCurrentSessionWaitsForTheNextConnect() throws Exception {
        push(connected("gw-1", 10));
        push(unsent("m1", "gw-1", 10)); // the disconnect is not here yet: sending it there again would loop
        assertThat(outputs()).isEmpty();
        push(disconnected("gw-1", 10));
        push(connected("gw-2", 11));
        assertThat(outputs()).containsExactly(new Outbound("gw-2", 11, unicast("m1"), DEFAULT_TTL));
        assertThat(harness.numProcessingTimeTimers()).isEqualTo(1); // its expiry, until it is acknowledged
    }

    private static DeliveryInput delivered(String id) {
        return DeliveryInput.delivered(Receipt.of(unicast(id), Receipt.Outcome.DELIVERED, "gw-1", null, 0));
    }

    private static DeliveryInput unsent(String id, String gateway, long epoch) {
        return DeliveryInput.of(new UnsentMessage(unicast(id), gateway, epoch, UnsentMessage.Reason.CONNECTION_BROKEN, 0));
    }

    private void push(DeliveryInput input) throws Exception {
        harness.processElement(new StreamRecord<>(input));
    }

    private List<Outbound> outputs() {
        return harness.extractOutputValues();
    }

    private List<Receipt> receipts() {
        var side = harness.getSideOutput(RouteToGateway.RECEIPTS);
        return side == null ? List.of() : side.stream().map(StreamRecord::getValue).toList();
    }

    private static DeliveryInput connected(String gateway, long epoch) {
        return connected(gateway, epoch, 0);
    }

    private static DeliveryInput connected(String gateway, long epoch, long at) {
        return DeliveryInput.of(MnEvent.connected(MN, gateway, epoch, at));
    }

    private static DeliveryInput gatewayLost(String gateway, long lastSignOfLife) {
        return DeliveryInput.of(MnEvent.gatewayLost(MN, gateway, lastSignOfLife));
    }

    private static DeliveryInput disconnected(String gateway, long epoch) {
        return DeliveryInput.of(MnEvent.disconnected(MN, gateway, epoch, 0));
    }

    private static Unicast unicast(String id) {
        return unicast(id, 0, null, false);
    }

    private static Unicast unicast(String id, long createdAt, Long ttlMs, boolean receipt) {
        return new Unicast(id, "app", MN, new byte[] {1}, ttlMs, createdAt, receipt);
    }

    private static DeliveryInput input(Unicast unicast) {
        return DeliveryInput.of(unicast);
    }

    private void push(Unicast unicast) throws Exception {
        push(input(unicast));
    }
}
