package io.ckc.jobs.poa;

import io.ckc.jobs.poa.functions.TrackGateway;
import io.ckc.protocol.records.ConnectionReport;
import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.ParameterTool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class TrackGatewayTest {

    private static final long PERIOD = 1_000;
    private static final int X = 3;
    private static final long RETENTION = 60_000;

    private KeyedOneInputStreamOperatorTestHarness<String, PoaInput, GatewayView> harness;

    @BeforeEach
    void setUp() throws Exception {
        harness = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(new TrackGateway(settings())),
                PoaInput::gatewayId, Types.STRING);
        harness.open();
        harness.setProcessingTime(10_000);
    }

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
    }

    @Test
    void aGatewayWithoutLoadReportForXPeriodsTurnsInactiveAndComesBackWithTheNextReport() throws Exception {
        push(PoaInput.of(new HelloPoA("gw-1", List.of(new Endpoint(Endpoint.UDP, "127.0.0.1", 5500)), 10_000)));
        push(PoaInput.of(load(10_000)));
        assertThat(last().active()).isTrue();
        assertThat(harness.numProcessingTimeTimers()).isEqualTo(1);
        int aliveEntries = harness.numKeyedStateEntries();

        harness.setProcessingTime(10_000 + X * PERIOD - 1);
        assertThat(last().active()).isTrue();
        harness.setProcessingTime(10_000 + X * PERIOD);
        assertThat(last().active()).isFalse();
        assertThat(harness.numProcessingTimeTimers()).as("the forget timer only").isEqualTo(1);

        push(PoaInput.of(load(10_000 + X * PERIOD + 500)));
        assertThat(last().active()).isTrue();
        assertThat(last().hello().endpoints()).containsExactly(new Endpoint(Endpoint.UDP, "127.0.0.1", 5500));
        assertThat(harness.numProcessingTimeTimers()).as("liveness only: the forget timer went").isEqualTo(1);
        assertThat(harness.numKeyedStateEntries()).as("nothing of the forgetting left").isEqualTo(aliveEntries);
        harness.setProcessingTime(10_000 + X * PERIOD + RETENTION);
        assertThat(last().gone()).isFalse();
    }

    @Test
    void aGatewayInactiveForTheRetentionIsForgottenStateTimersAndAll() throws Exception {
        push(PoaInput.of(new HelloPoA("gw-1", List.of(new Endpoint(Endpoint.UDP, "127.0.0.1", 5500)), 10_000)));
        push(PoaInput.of(load(10_000)));
        push(PoaInput.of(window(9_990, 0, 2, Map.of("a", 2_000L), List.of("a")))); // half a window
        harness.setProcessingTime(10_000 + X * PERIOD);
        assertThat(last().active()).isFalse();
        harness.setProcessingTime(10_000 + X * PERIOD + RETENTION - 1);
        assertThat(last().gone()).isFalse();
        harness.setProcessingTime(10_000 + X * PERIOD + RETENTION);
        assertThat(last()).isEqualTo(GatewayView.gone("gw-1"));
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void aLateLoadReportDoesNotKillAGatewayWhosePingWindowsAreHealthy() throws Exception {
        push(PoaInput.of(load(10_000)));
        harness.setProcessingTime(12_500);
        push(PoaInput.of(window(12_400, 0, 1, Map.of("a", 5_000L, "b", 7_000L), List.of("a", "b"))));
        harness.setProcessingTime(10_000 + X * PERIOD); // the load report deadline has passed
        assertThat(last().active()).isTrue();
        harness.setProcessingTime(12_500 + X * PERIOD);
        assertThat(last().active()).isFalse();
    }

    @Test
    void thePartsOfAPingWindowBecomeOneSetOfStatisticsAndTheMembers() throws Exception {
        push(PoaInput.of(load(10_000)));
        push(PoaInput.of(window(9_990, 0, 2, Map.of("a", 2_000L, "b", 4_000L), List.of("a", "b", "c"))));
        assertThat(harness.getSideOutput(TrackGateway.STATISTICS)).isNull();
        push(PoaInput.of(window(9_990, 1, 2, Map.of("d", 6_000L, "e", 9_000L), List.of("d", "e"))));
        List<ConnectionStatistics> stats = harness.getSideOutput(TrackGateway.STATISTICS).stream()
                .map(StreamRecord::getValue).toList();
        assertThat(stats).hasSize(1);
        ConnectionStatistics s = stats.get(0);
        assertThat(s.connected()).isEqualTo(5);
        assertThat(s.answered()).isEqualTo(4);
        assertThat(s.pingRate()).isEqualTo(0.8);
        assertThat(s.medianMs()).isEqualTo(5.0);
        assertThat(s.complete()).isTrue();
        assertThat(lastViews(2)).as("a view for each part, in order").extracting(GatewayView::members, GatewayView::membersPart, GatewayView::membersParts)
                .containsExactly(tuple(List.of("a", "b", "c"), 0, 2), tuple(List.of("d", "e"), 1, 2));
        assertThat(last().stats()).isEqualTo(s);
    }

    @Test
    void aWindowThatCountsItsNodesGivesTheirNumberAndNoMembers() throws Exception {
        push(PoaInput.of(load(10_000)));
        long sentMicros = 9_990 * 1_000L;
        push(PoaInput.of(new ConnectionReport("gw-1", sentMicros, 1_000, 0, 1, 2,
                Map.of("a", sentMicros + 3_000), List.of(), 40_000)));
        ConnectionStatistics s = harness.getSideOutput(TrackGateway.STATISTICS).peek().getValue();
        assertThat(s.connected()).isEqualTo(40_000);
        assertThat(s.answered()).isEqualTo(1);
        assertThat(s.complete()).isTrue();
        assertThat(last().members()).as("the nodes listed last stay as they were").isNull();
    }

    @Test
    void aPongAfterTheWindowIsNotCountedAndAMissingPartIsReportedIncomplete() throws Exception {
        push(PoaInput.of(load(10_000)));
        push(PoaInput.of(window(9_990, 0, 2, Map.of("a", 2_000L, "late", 1_500_000L), List.of("a", "late"))));
        push(PoaInput.of(window(9_995, 0, 1, Map.of(), List.of()))); // the next window: part 1 of 2 never came
        List<ConnectionStatistics> stats = harness.getSideOutput(TrackGateway.STATISTICS).stream()
                .map(StreamRecord::getValue).toList();
        ConnectionStatistics s = stats.get(0);
        assertThat(s.answered()).isEqualTo(1);
        assertThat(s.connected()).as("the nodes of the part that came").isEqualTo(2);
        assertThat(s.complete()).isFalse();
        assertThat(stats.get(1).connected()).as("the next window has none of them").isZero();
        assertThat(last().members()).isEmpty();
        assertThat(last().membersParts()).isEqualTo(1);
    }

    @Test
    void anIncompleteWindowHoldsNoneOfThePreviousWindowsNodes() throws Exception {
        push(PoaInput.of(load(10_000)));
        push(PoaInput.of(window(9_990, 0, 2, Map.of(), List.of("a"))));
        push(PoaInput.of(window(9_990, 1, 2, Map.of(), List.of("b"))));
        push(PoaInput.of(window(9_995, 0, 2, Map.of(), List.of("c")))); // its part 1 never comes
        push(PoaInput.of(window(9_999, 0, 1, Map.of(), List.of("d"))));
        List<ConnectionStatistics> stats = harness.getSideOutput(TrackGateway.STATISTICS).stream()
                .map(StreamRecord::getValue).toList();
        assertThat(stats).extracting(ConnectionStatistics::connected).containsExactly(2, 1, 1);
        assertThat(last().members()).containsExactly("d");
        assertThat(last().membersParts()).isEqualTo(1);
    }

    @Test
    void afterARestoreASilenceItDidNotObserveForTheWholeAllowanceDeclaresNoGatewayLost() throws Exception {
        push(PoaInput.of(load(10_000)));
        var snapshot = harness.snapshot(1, 10_000);
        harness.close();
        harness = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(new TrackGateway(settings())),
                PoaInput::gatewayId, Types.STRING);
        harness.setup();
        harness.initializeState(snapshot);
        harness.open();
        long restoredAt = 10_000 + 5 * X * PERIOD; // the job was down longer than the allowance
        harness.setProcessingTime(restoredAt); // the overdue liveness timer fires before any report is read
        assertThat(harness.extractOutputValues()).as("no view: the gateway is not declared inactive").isEmpty();
        harness.setProcessingTime(restoredAt + X * PERIOD - 1);
        assertThat(harness.extractOutputValues()).isEmpty();
        harness.setProcessingTime(restoredAt + X * PERIOD); // and still silent for the whole allowance since
        assertThat(last().active()).isFalse();
    }

    @Test
    void reportsOlderThanXPeriodsAreIgnored() throws Exception {
        push(PoaInput.of(load(10_000 - X * PERIOD - 1)));
        assertThat(harness.extractOutputValues()).isEmpty();
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    private static PoaSettings settings() {
        return PoaSettings.fromArgs(ParameterTool.fromArgs(
                new String[] {"--liveness-periods", String.valueOf(X), "--report-period-ms", String.valueOf(PERIOD),
                        "--gateway-retention-ms", String.valueOf(RETENTION)}));
    }

    private void push(PoaInput input) throws Exception {
        harness.processElement(new StreamRecord<>(input));
    }

    private GatewayView last() {
        return lastViews(1).get(0);
    }

    private List<GatewayView> lastViews(int count) {
        List<GatewayView> views = harness.extractOutputValues();
        return views.subList(views.size() - count, views.size());
    }

    private static LoadReport load(long timestamp) {
        return new LoadReport("gw-1", timestamp, PERIOD, 1, 0.1, 0.2, 0.1, 1L << 34, 0.5, 1L << 30, 0.8, 5);
    }

    /** A window part; pong arrival times given as offsets in microseconds from the ping. */
    private static ConnectionReport window(long sentAtMs, int part, int parts, Map<String, Long> pongOffsetsMicros,
                                           List<String> connected) {
        long sentMicros = sentAtMs * 1000;
        Map<String, Long> arrivals = new java.util.HashMap<>();
        pongOffsetsMicros.forEach((mn, offset) -> arrivals.put(mn, sentMicros + offset));
        return new ConnectionReport("gw-1", sentMicros, 1_000, part, parts, connected.size(), arrivals, connected);
    }
}
