package io.ckc.jobs.delivery.functions;

import io.ckc.jobs.delivery.MembershipChange;
import io.ckc.protocol.records.GroupAdvertisement;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Keyed by advertisement key (definer id, node id): turns each node's latest GroupAdvertisement of
 * one definer into joins and leaves of single groups, for the index keyed by group. A repeated
 * advertisement changes nothing; an empty one (or a deleted key) leaves every group of that
 * definer. An advertisement with a lease ({@code expiresAt}) lapses at its deadline unless a newer
 * one came; an advertisement older than the current one is ignored.
 */
public final class TrackMemberships extends KeyedProcessFunction<String, GroupAdvertisement, MembershipChange> {

    private transient ValueState<GroupAdvertisement> current;
    private transient Counter joins;
    private transient Counter leaves;
    private transient Counter lapsed;
    private transient Counter outOfOrder;

    @Override
    public void open(OpenContext openContext) {
        current = getRuntimeContext().getState(new ValueStateDescriptor<>("advertisement", GroupAdvertisement.class));
        var metrics = getRuntimeContext().getMetricGroup();
        joins = metrics.counter("groupJoins");
        leaves = metrics.counter("groupLeaves");
        lapsed = metrics.counter("groupLeasesLapsed");
        outOfOrder = metrics.counter("staleAdvertisements");
    }

    @Override
    public void processElement(GroupAdvertisement next, Context ctx, Collector<MembershipChange> out) throws Exception {
        GroupAdvertisement before = current.value();
        if (before != null && next.timestamp() < before.timestamp()) {
            outOfOrder.inc();
            return;
        }
        cancelLease(before, ctx);
        emitDifference(before, next, out);
        if (next.groups().isEmpty()) {
            current.clear();
            return;
        }
        current.update(next);
        if (next.expiresAt() != null) {
            // Why: a windowed rule cannot say when a quiet node leaves; its lease ends the membership.
            ctx.timerService().registerProcessingTimeTimer(next.expiresAt());
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<MembershipChange> out) throws Exception {
        GroupAdvertisement held = current.value();
        if (held != null && held.expiresAt() != null && held.expiresAt() == timestamp) {
            lapsed.inc();
            emitDifference(held, null, out);
            current.clear();
        }
    }

    private void emitDifference(GroupAdvertisement before, GroupAdvertisement after, Collector<MembershipChange> out) {
        List<String> was = before == null ? List.of() : before.qualifiedGroups();
        List<String> now = after == null ? List.of() : after.qualifiedGroups();
        Set<String> kept = new HashSet<>(was);
        kept.retainAll(now);
        String mnId = after != null ? after.mnId() : before == null ? null : before.mnId();
        for (String group : was) {
            if (!kept.contains(group)) {
                leaves.inc();
                out.collect(new MembershipChange(group, mnId, false));
            }
        }
        for (String group : now) {
            if (!kept.contains(group)) {
                joins.inc();
                out.collect(new MembershipChange(group, mnId, true));
            }
        }
    }

    private static void cancelLease(GroupAdvertisement before, Context ctx) {
        if (before != null && before.expiresAt() != null) {
            ctx.timerService().deleteProcessingTimeTimer(before.expiresAt());
        }
    }
}
