package io.ckc.jobs.poa.functions;

import io.ckc.jobs.poa.GatewayView;
import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.protocol.records.GatewayList;
import io.ckc.protocol.records.LoadReport;
import io.ckc.udfs.GatewayRanking;
import io.ckc.udfs.GatewaySnapshot;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The PoA manager's gateway list, part of {@link BalanceGateways}' keyed state: ranks the active
 * gateways with the configured {@link GatewayRanking} and writes them, best first, with a version.
 */
final class GatewayListing {

    private final GatewayRanking ranking;
    private final ValueState<List<String>> listed;
    private final ValueState<Long> version;

    GatewayListing(GatewayRanking ranking, RuntimeContext state) {
        this.ranking = ranking;
        listed = state.getState(new ValueStateDescriptor<>("listed-gateways",
                TypeInformation.of(new TypeHint<List<String>>() { })));
        version = state.getState(new ValueStateDescriptor<>("gateway-list-version", Long.class));
    }

    String rankingName() {
        return ranking.name();
    }

    /** Scores of the active gateways by the configured ranking; anything not finite or negative counts as 0. */
    Map<String, Double> rank(List<GatewayView> active) {
        Map<String, Double> scores = new HashMap<>();
        if (active.isEmpty()) {
            return scores;
        }
        Map<String, Double> ranked = ranking.rank(active.stream().map(GatewayListing::snapshot).toList());
        for (GatewayView view : active) {
            Double score = ranked.get(view.gatewayId());
            scores.put(view.gatewayId(), score == null || !Double.isFinite(score) || score < 0 ? 0 : score);
        }
        return scores;
    }

    /** The list of active, not draining gateways, best score first, ties to the one with fewer nodes. */
    GatewayList write(List<GatewayView> active, Map<String, Double> scores, long now) throws Exception {
        List<GatewayList.Entry> entries = new ArrayList<>();
        for (GatewayView view : active) {
            if (!view.draining()) {
                entries.add(new GatewayList.Entry(view.gatewayId(), view.hello().endpoints(),
                        scores.getOrDefault(view.gatewayId(), 0.0), view.connected()));
            }
        }
        entries.sort(Comparator.comparing((GatewayList.Entry e) -> -e.score())
                .thenComparing(GatewayList.Entry::connectedMns).thenComparing(GatewayList.Entry::gatewayId));
        long next = version.value() == null ? 1 : version.value() + 1;
        version.update(next);
        listed.update(entries.stream().map(GatewayList.Entry::gatewayId).toList());
        return new GatewayList(next, now, ranking.name(), entries);
    }

    /** The gateways of the latest list written. */
    Set<String> listed() throws Exception {
        return new HashSet<>(listed.value() == null ? List.of() : listed.value());
    }

    private static GatewaySnapshot snapshot(GatewayView view) {
        LoadReport load = view.load();
        ConnectionStatistics stats = view.stats();
        return new GatewaySnapshot(view.gatewayId(), view.connected(),
                load == null ? 0 : load.poolSize(), load == null ? 0 : load.poolUtilisation(),
                load == null ? 0 : load.cpuLoad(), load == null ? 0 : load.processCpuLoad(),
                load == null ? 0 : load.memoryTotalBytes(), load == null ? 1 : load.memoryFreeShare(),
                load == null ? 0 : load.jvmMemoryTotalBytes(), load == null ? 1 : load.jvmMemoryFreeShare(),
                stats == null ? null : stats.pingRate(), stats == null ? null : stats.meanMs(),
                stats == null ? null : stats.medianMs(), stats == null ? null : stats.maxMs());
    }
}
