package io.ckc.jobs.delivery;

import io.ckc.jobs.delivery.functions.RouteToGateway;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RouteToGatewayTest {

    private static final String MN = "6f1c3a56-0000-4000-8000-000000000001";
    private static final long PARK_TIMEOUT = 60_000;
    private static final long RETENTION = 3_600_000;

    private KeyedOneInputStreamOperatorTestHarness<String, DeliveryInput, Outbound> harness;

    @BeforeEach
    void setUp() throws Exception {
        harness = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new RouteToGateway(PARK_TIMEOUT, RETENTION)),
                DeliveryInput::mnId, Types.STRING);
        harness.open();
    }

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
    }

    @Test
    void aUnicastGoesToTheGatewayOfTheCurrentSession() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1"));
        assertThat(outputs()).containsExactly(new Outbound("gw-1", 10, unicast("m1")));
    }

    @Test
    void aReconnectToAnotherGatewayMovesTheRoute() throws Exception {
        push(connected("gw-1", 10));
        push(unicast("m1"));
        push(connected("gw-2", 11));
        push(unicast("m2"));
        assertThat(outputs()).extracting(Outbound::gatewayId).containsExactly("gw-1", "gw-2");
    }

    @Test
    void aStaleDisconnectFromTheOldGatewayAfterAHandoverIsIgnored() throws Exception {
        push(connected("gw-1", 10));
        push(connected("gw-2", 11));
        push(disconnected("gw-1", 10)); // late, from the old gateway
        push(unicast("m1"));
        assertThat(outputs()).containsExactly(new Outbound("gw-2", 11, unicast("m1")));
    }

    @Test
    void aConnectWithAnOlderEpochDoesNotReplaceTheRoute() throws Exception {
        push(connected("gw-2", 11));
        push(connected("gw-1", 10));
        push(unicast("m1"));
        assertThat(outputs()).extracting(Outbound::gatewayId).containsExactly("gw-2");
    }

    @Test
    void unicastsForADisconnectedNodeAreParkedAndSentInOrderOnReconnect() throws Exception {
        push(connected("gw-1", 10));
        push(disconnected("gw-1", 10));
        push(unicast("m1"));
        push(unicast("m2"));
        assertThat(outputs()).isEmpty();
        assertThat(harness.numProcessingTimeTimers()).isEqualTo(2); // park deadline + route retention
        push(connected("gw-3", 11));
        push(unicast("m3"));
        assertThat(outputs()).extracting(o -> o.unicast().messageId()).containsExactly("m1", "m2", "m3");
        assertThat(outputs()).extracting(Outbound::gatewayId).containsOnly("gw-3");
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void parkedUnicastsAreDroppedAtTheParkTimeoutAndStateReturnsToZero() throws Exception {
        push(unicast("m1"));
        assertThat(harness.numKeyedStateEntries()).isEqualTo(2); // parked list + deadline
        harness.setProcessingTime(PARK_TIMEOUT);
        assertThat(outputs()).isEmpty();
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void theRouteOfANodeThatStaysGoneIsForgottenAfterTheRetention() throws Exception {
        push(connected("gw-1", 10));
        push(disconnected("gw-1", 10));
        assertThat(harness.numKeyedStateEntries()).isEqualTo(2); // route + forget time
        harness.setProcessingTime(RETENTION);
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void aReconnectBeforeTheRetentionKeepsTheRouteAndCancelsTheTimer() throws Exception {
        push(connected("gw-1", 10));
        push(disconnected("gw-1", 10));
        push(connected("gw-1", 11));
        assertThat(harness.numProcessingTimeTimers()).isZero();
        harness.setProcessingTime(RETENTION);
        push(unicast("m1"));
        assertThat(outputs()).extracting(Outbound::gatewayId).containsExactly("gw-1");
    }

    @Test
    void aMessageTheOldGatewayCouldNotSendGoesToTheNewSession() throws Exception {
        push(connected("gw-1", 10));
        push(connected("gw-2", 11)); // handed over
        push(unsent("m1", "gw-1", 10));
        assertThat(outputs()).containsExactly(new Outbound("gw-2", 11, unicast("m1")));
    }

    @Test
    void anUnsentMessageOfTheCurrentSessionWaitsForTheNextConnect() throws Exception {
        push(connected("gw-1", 10));
        push(unsent("m1", "gw-1", 10)); // the disconnect is not here yet: sending it there again would loop
        assertThat(outputs()).isEmpty();
        push(disconnected("gw-1", 10));
        push(connected("gw-2", 11));
        assertThat(outputs()).containsExactly(new Outbound("gw-2", 11, unicast("m1")));
        assertThat(harness.numProcessingTimeTimers()).isZero();
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

    private static DeliveryInput connected(String gateway, long epoch) {
        return DeliveryInput.of(MnEvent.connected(MN, gateway, epoch, 0));
    }

    private static DeliveryInput disconnected(String gateway, long epoch) {
        return DeliveryInput.of(MnEvent.disconnected(MN, gateway, epoch, 0));
    }

    private static Unicast unicast(String id) {
        return new Unicast(id, "app", MN, new byte[] {1}, null, 0, false);
    }

    private static DeliveryInput input(Unicast unicast) {
        return DeliveryInput.of(unicast);
    }

    private void push(Unicast unicast) throws Exception {
        push(input(unicast));
    }
}
