package io.ckc.jobs.poa;

import io.ckc.jobs.poa.functions.BalanceGateways;
import io.ckc.protocol.records.BalanceRound;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GatewayList;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;
import io.ckc.protocol.records.MnEvent;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.ParameterTool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** The PoA manager's global step on a harness: list, ping settings, rounds, and forgetting gone gateways. */
class BalanceGatewaysTest {

    private static final long CHECK = 1_000;
    private static final long COOLDOWN = 5_000;
    private static final long LOAD_TIME = 42_000;

    private KeyedOneInputStreamOperatorTestHarness<String, GatewayView, GatewayOrder> harness;

    @BeforeEach
    void setUp() throws Exception {
        PoaSettings settings = PoaSettings.fromArgs(ParameterTool.fromArgs(new String[] {
                "--check-interval-ms", String.valueOf(CHECK), "--handover-cooldown-ms", String.valueOf(COOLDOWN),
                "--imbalance-abs", "1", "--imbalance-rel", "0", "--settle-ms", "0", "--max-settle-ms", "0",
                "--ranking", "uniform", "--ping-reconfig", "false"}));
        harness = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(new BalanceGateways(settings)),
                view -> BalanceGateways.ALL, Types.STRING);
        harness.open();
        harness.setProcessingTime(0);
    }

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
    }

    @Test
    void aNewGatewayGetsThePingConfigOnceAndTheListAtOnce() throws Exception {
        push(view("gw-1", true, 4, 0));
        push(view("gw-1", true, 4, 0));
        assertThat(harness.extractOutputValues()).extracting(GatewayOrder::gatewayId, o -> o.command().getClass())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("gw-1", GatewayCommand.ConfigurePing.class));
        assertThat(lists()).last().satisfies(list ->
                assertThat(list.gateways()).extracting(GatewayList.Entry::gatewayId).containsExactly("gw-1"));
    }

    @Test
    void aRoundMovesNodesFromTheFullGatewayToTheEmptyOne() throws Exception {
        push(view("gw-1", true, 10, 0));
        push(view("gw-2", true, 0, 100));
        harness.setProcessingTime(CHECK);
        List<GatewayOrder> handovers = harness.extractOutputValues().stream()
                .filter(o -> o.command() instanceof GatewayCommand.Handover).toList();
        assertThat(handovers).hasSize(5).allMatch(o -> o.gatewayId().equals("gw-1"));
        assertThat(rounds()).last().satisfies(r -> assertThat(r.handovers()).isEqualTo(5));
    }

    @Test
    void noNodeMovesWhileAGatewaysReportIsLateThoughItStillCountsAsActive() throws Exception {
        push(view("gw-1", true, 5, 0));
        push(view("gw-2", true, 5, 100)); // gw-2's last report; it stops reporting (it died) and its nodes leave
        harness.setProcessingTime(2_000);
        push(reportedAt(view("gw-1", true, 10, 0), LOAD_TIME + 2_000));
        harness.setProcessingTime(3_000); // gw-2 heard 3 s ago, at a report period of 1 s
        assertThat(harness.extractOutputValues()).noneMatch(o -> o.command() instanceof GatewayCommand.Handover);
        assertThat(rounds()).last().satisfies(r -> assertThat(r.decision()).isEqualTo("gateway-silent"));

        push(reportedAt(view("gw-1", true, 10, 0), LOAD_TIME + 3_000));
        push(reportedAt(view("gw-2", true, 0, 100), LOAD_TIME + 3_000)); // it was only late, and empty now
        harness.setProcessingTime(4_000);
        assertThat(harness.extractOutputValues()).filteredOn(o -> o.command() instanceof GatewayCommand.Handover)
                .hasSize(5);
    }

    @Test
    void eachNodeOfAGatewayThatTurnsInactiveHearsItsSessionThereIsOverAsOfTheGatewaysLastReport() throws Exception {
        push(view("gw-1", true, 3, 0));
        push(view("gw-2", true, 2, 10));
        push(withMembers(view("gw-1", false, 0, 0), null)); // the per-gateway step's inactive view names no members
        assertThat(lostSessions()).extracting(MnEvent::type, MnEvent::mnId, MnEvent::gatewayId, MnEvent::timestamp)
                .containsExactly(tuple(MnEvent.Type.GATEWAY_LOST, "mn-0", "gw-1", LOAD_TIME),
                        tuple(MnEvent.Type.GATEWAY_LOST, "mn-1", "gw-1", LOAD_TIME),
                        tuple(MnEvent.Type.GATEWAY_LOST, "mn-2", "gw-1", LOAD_TIME));
        push(withMembers(view("gw-1", false, 0, 0), null)); // still inactive: nothing more
        assertThat(lostSessions()).hasSize(3);
    }

    @Test
    void aGatewaysNodesComeInPartsAndAWindowOfFewerPartsLeavesNoneOfTheOlder() throws Exception {
        push(view("gw-2", true, 2, 10));
        push(part(view("gw-1", true, 0, 0), List.of("mn-0", "mn-1"), 0, 3));
        push(part(view("gw-1", true, 0, 0), List.of("mn-2"), 1, 3));
        push(part(view("gw-1", true, 0, 0), List.of("mn-3"), 2, 3));
        push(part(view("gw-1", true, 0, 0), List.of("mn-4"), 0, 2)); // the next window, fewer nodes
        push(part(view("gw-1", true, 0, 0), List.of("mn-5"), 1, 2));
        assertThat(keysOf("gateway-member-parts")).containsExactly("gw-1#0", "gw-1#1", "gw-2#0");
        push(withMembers(view("gw-1", false, 0, 0), null));
        assertThat(lostSessions()).extracting(MnEvent::mnId).containsExactly("mn-4", "mn-5");
    }

    @Test
    void whenNoGatewayWasHeardForAReportPeriodNoSessionIsDeclaredOver() throws Exception {
        push(view("gw-1", true, 3, 0));
        push(view("gw-2", true, 2, 10));
        harness.setProcessingTime(1_001); // a report period (1 s) and more without any report: Kafka is away
        push(withMembers(view("gw-1", false, 0, 0), null));
        push(withMembers(view("gw-2", false, 0, 0), null));
        assertThat(lostSessions()).isEmpty();
    }

    @Test
    void everythingKeptOfAGatewayThatIsGoneIsClearedAndStateDoesNotGrowWithGatewaysThatCameAndWent()
            throws Exception {
        push(view("gw-1", true, 10, 0));
        harness.setProcessingTime(CHECK);
        long now = comeTakeNodesAndGo("gw-2", CHECK);
        int afterOne = harness.numKeyedStateEntries();
        for (String gateway : List.of("gw-3", "gw-4", "gw-5")) {
            now = comeTakeNodesAndGo(gateway, now);
        }
        assertThat(harness.numKeyedStateEntries()).as("state entries after three more gateways came and went")
                .isEqualTo(afterOne);
        assertThat(keysOf("gateway-views")).containsExactly("gw-1");
        assertThat(harness.numProcessingTimeTimers()).as("the check beat only").isEqualTo(1);
    }

    /** A gateway comes, a round hands it nodes, it goes inactive and then gone; returns the time after. */
    private long comeTakeNodesAndGo(String gateway, long from) throws Exception {
        push(view(gateway, true, 0, 100));
        push(reportedAt(view("gw-1", true, 10, 0), LOAD_TIME + from + 1)); // gw-1 reports on
        harness.setProcessingTime(from + CHECK); // a round hands nodes from gw-1 to it
        assertThat(keysOf("handed-over-at")).isNotEmpty();
        assertThat(keysOf("recipient-count-after-moves")).containsExactly(gateway);
        assertThat(keysOf("gateway-views")).containsExactly("gw-1", gateway);

        push(view(gateway, false, 0, 100)); // inactive: still known, off the list
        assertThat(lists()).last().satisfies(list ->
                assertThat(list.gateways()).extracting(GatewayList.Entry::gatewayId).containsExactly("gw-1"));
        push(GatewayView.gone(gateway));
        for (String map : List.of("gateway-views", "gateway-member-parts", "gateway-member-part-counts",
                "ping-config-sent-for-hello", "recipient-count-after-moves", "donor-handed-out", "report-heard-at")) {
            assertThat(keysOf(map)).as(map).noneMatch(key -> key.equals(gateway) || key.startsWith(gateway + "#"));
        }
        long after = from + CHECK + COOLDOWN;
        harness.setProcessingTime(after); // the handed-over nodes' cooldown ends
        assertThat(keysOf("handed-over-at")).isEmpty();
        return after;
    }

    private Set<String> keysOf(String mapState) throws Exception {
        KeyedStateBackend<String> backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(BalanceGateways.ALL);
        MapState<String, Object> state = backend.getPartitionedState(VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE, new MapStateDescriptor<>(mapState, Types.STRING, Types.GENERIC(Object.class)));
        Set<String> keys = new TreeSet<>();
        state.keys().forEach(keys::add);
        return keys;
    }

    private void push(GatewayView view) throws Exception {
        harness.processElement(new StreamRecord<>(view));
    }

    private List<GatewayList> lists() {
        return harness.getSideOutput(BalanceGateways.GATEWAY_LIST).stream().map(StreamRecord::getValue).toList();
    }

    private List<MnEvent> lostSessions() {
        var side = harness.getSideOutput(BalanceGateways.LOST_SESSIONS);
        return side == null ? List.of() : side.stream().map(StreamRecord::getValue).toList();
    }

    private static GatewayView withMembers(GatewayView view, List<String> members) {
        return new GatewayView(view.gatewayId(), view.active(), view.draining(), view.hello(), view.load(), view.stats(),
                members, 0, members == null ? 0 : 1, view.gone());
    }

    private static GatewayView reportedAt(GatewayView view, long timestamp) {
        LoadReport load = view.load();
        return new GatewayView(view.gatewayId(), view.active(), view.draining(), view.hello(),
                new LoadReport(load.gatewayId(), timestamp, load.periodMs(), load.poolSize(), load.poolUtilisation(),
                        load.cpuLoad(), load.processCpuLoad(), load.memoryTotalBytes(), load.memoryFreeShare(),
                        load.jvmMemoryTotalBytes(), load.jvmMemoryFreeShare(), load.connectedMns()),
                view.stats(), view.members(), view.membersPart(), view.membersParts(), view.gone());
    }

    private static GatewayView part(GatewayView view, List<String> members, int part, int parts) {
        return new GatewayView(view.gatewayId(), view.active(), view.draining(), view.hello(), view.load(), view.stats(),
                members, part, parts, view.gone());
    }

    private List<BalanceRound> rounds() {
        return harness.getSideOutput(BalanceGateways.ROUNDS).stream().map(StreamRecord::getValue).toList();
    }

    private static GatewayView view(String gatewayId, boolean active, int nodes, int firstNode) {
        List<String> members = new ArrayList<>();
        IntStream.range(firstNode, firstNode + nodes).forEach(i -> members.add("mn-" + i));
        HelloPoA hello = new HelloPoA(gatewayId, List.of(new Endpoint(Endpoint.UDP, "127.0.0.1", 5500)), 1);
        LoadReport load = new LoadReport(gatewayId, LOAD_TIME, 1_000, 1, 0.1, 0.2, 0.1, 1L << 34, 0.5, 1L << 30, 0.8, nodes);
        return new GatewayView(gatewayId, active, false, hello, load, null, members, 0, 1, false);
    }
}
