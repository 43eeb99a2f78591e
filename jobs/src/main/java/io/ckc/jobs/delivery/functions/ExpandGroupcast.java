package io.ckc.jobs.delivery.functions;

import io.ckc.jobs.delivery.GroupcastSettings;
import io.ckc.jobs.delivery.MembershipChange;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Keyed by group: the membership index of one group and the expansion of its groupcasts (paper
 * section 7). Input 1 keeps the members ({@link MembershipChange}s); input 2 takes groupcasts.
 *
 * <p>A groupcast goes to the members the group has when it is processed, as one unicast each
 * (same message id, TTL and creation time), which then take the unicast path: routing, MTD,
 * receipts. The expansion is metered: {@link GroupcastSettings#chunk()} members per step, the next
 * step on a timer (after a pause when a rate is set), so a group of many thousands never goes out
 * in one burst and checkpoints pass between steps. The members to reach are stored once, as one
 * state entry per step, so a step reads and removes only its own (the cost of a groupcast grows with
 * the group, not with its square). A member that leaves before its step is skipped. Groupcasts to
 * one group are expanded one after another, in arrival order, so each member gets them in that order. Counted per group: groupcasts and recipients; a groupcast to a group
 * with no members is counted and, if asked, gets a DROPPED receipt naming the group.
 */
public final class ExpandGroupcast extends KeyedCoProcessFunction<String, MembershipChange, Groupcast, Unicast> {

    private final GroupcastSettings settings;

    private transient MapState<String, Boolean> members;
    private transient ValueState<Groupcast> expanding;
    /** The snapshot of the groupcast in progress, one entry per step: step number to its members. */
    private transient MapState<Integer, List<String>> steps;
    /** The next step of {@link #steps} to send; none while a groupcast restored from the version before waits in {@link #legacyRemaining}. */
    private transient ValueState<Integer> nextStepIndex;
    /** How versions before the steps kept the members still to reach: read once, after a restore from one. */
    private transient ListState<String> legacyRemaining;
    /** Members of the snapshot being expanded who left since (and did not come back): read once per step. */
    private transient MapState<String, Boolean> leftDuringExpansion;
    private transient ListState<Groupcast> waiting;
    private transient ValueState<Long> nextStep;
    private transient Counter noMembers;
    private transient Counter skippedLeft;
    /** All groups together, registered at once so that a dashboard has the series before the first groupcast. */
    private transient Counter expanded;
    private transient Counter delivered;
    private transient Map<String, Counter> groupcastsByGroup;
    private transient Map<String, Counter> recipientsByGroup;

    public ExpandGroupcast(GroupcastSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext openContext) {
        var state = getRuntimeContext();
        members = state.getMapState(new MapStateDescriptor<>("group-members", Types.STRING, Types.BOOLEAN));
        expanding = state.getState(new ValueStateDescriptor<>("groupcast-expanding", Groupcast.class));
        steps = state.getMapState(new MapStateDescriptor<>("groupcast-steps", Types.INT, Types.LIST(Types.STRING)));
        nextStepIndex = state.getState(new ValueStateDescriptor<>("groupcast-next-step-index", Types.INT));
        legacyRemaining = state.getListState(new ListStateDescriptor<>("groupcast-remaining", Types.STRING));
        leftDuringExpansion = state.getMapState(
                new MapStateDescriptor<>("groupcast-left-during-expansion", Types.STRING, Types.BOOLEAN));
        waiting = state.getListState(new ListStateDescriptor<>("groupcast-waiting", Groupcast.class));
        nextStep = state.getState(new ValueStateDescriptor<>("groupcast-next-step", Types.LONG));
        var metrics = getRuntimeContext().getMetricGroup();
        noMembers = metrics.counter("groupcastsWithoutMembers");
        skippedLeft = metrics.counter("groupcastMembersLeft");
        expanded = metrics.counter("groupcastsExpanded");
        delivered = metrics.counter("groupcastDeliveries");
        groupcastsByGroup = new HashMap<>();
        recipientsByGroup = new HashMap<>();
    }

    @Override
    public void processElement1(MembershipChange change, Context ctx, Collector<Unicast> out) throws Exception {
        boolean duringExpansion = expanding.value() != null;
        if (change.joined()) {
            members.put(change.mnId(), Boolean.TRUE);
            if (duringExpansion) {
                leftDuringExpansion.remove(change.mnId());
            }
        } else {
            members.remove(change.mnId());
            if (duringExpansion) {
                leftDuringExpansion.put(change.mnId(), Boolean.TRUE);
            }
        }
    }

    @Override
    public void processElement2(Groupcast groupcast, Context ctx, Collector<Unicast> out) throws Exception {
        if (expanding.value() != null) {
            waiting.add(groupcast); // after the one in progress: members get a group's groupcasts in order
            return;
        }
        start(groupcast, ctx, out);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Unicast> out) throws Exception {
        Long due = nextStep.value();
        if (due == null || due != timestamp) {
            return;
        }
        nextStep.clear();
        if (expanding.value() != null) {
            step(ctx, out);
        } else {
            startNextWaiting(ctx, out);
        }
    }

    /** Takes the members as they are now and sends the first step. */
    private void start(Groupcast groupcast, Context ctx, Collector<Unicast> out) throws Exception {
        counter(groupcastsByGroup, "groupcasts", groupcast.group()).inc();
        expanded.inc();
        List<String> recipients = new ArrayList<>();
        for (String mnId : members.keys()) {
            recipients.add(mnId);
        }
        if (recipients.isEmpty()) {
            noMembers.inc();
            if (groupcast.receipt()) {
                long now = ctx.timerService().currentProcessingTime();
                ctx.output(RouteToGateway.RECEIPTS, new Receipt(groupcast.messageId(), groupcast.sender(),
                        groupcast.group(), Receipt.Outcome.DROPPED, null, "the group has no members", now));
            }
            scheduleStep(ctx, 0);
            return;
        }
        recipients.sort(null); // a deterministic order, whatever the state backend's
        expanding.update(groupcast);
        storeSteps(recipients);
        step(ctx, out);
    }

    private void storeSteps(List<String> recipients) throws Exception {
        int index = 0;
        for (int from = 0; from < recipients.size(); from += settings.chunk()) {
            steps.put(index++, new ArrayList<>(recipients.subList(from, Math.min(recipients.size(), from + settings.chunk()))));
        }
        nextStepIndex.update(0);
    }

    /** A groupcast in progress in a savepoint of a version before the steps: its members still to reach become steps. */
    private void adoptLegacyRemaining() throws Exception {
        List<String> rest = new ArrayList<>();
        Iterable<String> legacy = legacyRemaining.get();
        if (legacy != null) {
            legacy.forEach(rest::add);
        }
        legacyRemaining.clear();
        storeSteps(rest);
    }

    /** Sends the next step of the groupcast in progress; schedules the one after it or the next groupcast. */
    private void step(Context ctx, Collector<Unicast> out) throws Exception {
        Groupcast groupcast = expanding.value();
        Counter recipients = counter(recipientsByGroup, "groupcastRecipients", groupcast.group());
        Integer next = nextStepIndex.value();
        if (next == null) {
            adoptLegacyRemaining();
            next = 0;
        }
        int index = next;
        List<String> members = steps.get(index);
        int sent = 0;
        if (members != null) {
            // Why not members.contains per member: one state read per step instead of one per member (on
            // RocksDB a JNI call each, most of a large groupcast's time).
            Set<String> left = new HashSet<>();
            leftDuringExpansion.keys().forEach(left::add);
            for (String mnId : members) {
                sent++;
                if (!left.contains(mnId)) {
                    recipients.inc();
                    delivered.inc();
                    out.collect(groupcast.toMember(mnId));
                } else {
                    skippedLeft.inc();
                }
            }
            steps.remove(index);
        }
        if (!steps.contains(index + 1)) {
            expanding.clear();
            steps.clear();
            nextStepIndex.clear();
            leftDuringExpansion.clear();
        } else {
            nextStepIndex.update(index + 1);
        }
        scheduleStep(ctx, settings.pauseAfterMs(sent));
    }

    private void startNextWaiting(Context ctx, Collector<Unicast> out) throws Exception {
        Iterator<Groupcast> queued = waiting.get().iterator();
        if (!queued.hasNext()) {
            return;
        }
        Groupcast next = queued.next();
        List<Groupcast> rest = new ArrayList<>();
        queued.forEachRemaining(rest::add);
        if (rest.isEmpty()) {
            waiting.clear();
        } else {
            waiting.update(rest);
        }
        start(next, ctx, out);
    }

    /** Why: the next step runs from a timer so other records and checkpoint barriers get their turn. */
    private void scheduleStep(Context ctx, long pauseMs) throws Exception {
        if (expanding.value() == null && !waiting.get().iterator().hasNext()) {
            return;
        }
        long at = ctx.timerService().currentProcessingTime() + pauseMs;
        Long already = nextStep.value();
        if (already != null) {
            ctx.timerService().deleteProcessingTimeTimer(already);
        }
        nextStep.update(at);
        ctx.timerService().registerProcessingTimeTimer(at);
    }

    private Counter counter(Map<String, Counter> cache, String name, String group) {
        return cache.computeIfAbsent(group, g -> getRuntimeContext().getMetricGroup().addGroup("group", g).counter(name));
    }
}
