package io.ckc.jobs.groups.functions;

import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.udfs.GroupSelection;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Keyed by mobile node: passes each ContextReport to the definer's {@link GroupSelection} and writes
 * a GroupAdvertisement only when the node's set of groups changed (paper section 7). A node that
 * was never in a group and still is in none produces nothing. A selection that throws is counted
 * and the node keeps its previous groups.
 */
public final class ApplyGroupSelection extends KeyedProcessFunction<String, ContextReport, GroupAdvertisement> {

    private static final Logger LOG = LoggerFactory.getLogger(ApplyGroupSelection.class);

    private final GroupSelection selection;

    private transient ValueState<List<String>> groups;
    private transient Counter changes;
    private transient Counter unchanged;
    private transient Counter selectionErrors;

    public ApplyGroupSelection(GroupSelection selection) {
        this.selection = selection;
    }

    @Override
    public void open(OpenContext openContext) {
        groups = getRuntimeContext().getState(new ValueStateDescriptor<>("groups", Types.LIST(Types.STRING)));
        var metrics = getRuntimeContext().getMetricGroup();
        changes = metrics.counter("groupChanges");
        unchanged = metrics.counter("groupsUnchanged");
        selectionErrors = metrics.counter("selectionErrors");
    }

    @Override
    public void processElement(ContextReport report, Context ctx, Collector<GroupAdvertisement> out) throws Exception {
        io.ckc.protocol.records.Context context = report.context();
        Set<String> selected;
        try {
            selected = context == null ? selection.groupsOf(report.mnId(), null, null, null, java.util.Map.of())
                    : selection.groupsOf(report.mnId(), context.latitude(), context.longitude(), context.battery(),
                    context.attributes());
        } catch (RuntimeException e) {
            selectionErrors.inc();
            LOG.warn("Group selection {} failed for node {}: {}", selection.definerId(), report.mnId(), e.toString());
            return;
        }
        List<String> now = new ArrayList<>(selected == null ? Set.of() : selected);
        now.sort(null);
        List<String> before = groups.value();
        if (now.equals(before == null ? List.of() : before)) {
            unchanged.inc();
            return;
        }
        groups.update(now);
        changes.inc();
        out.collect(new GroupAdvertisement(selection.definerId(), report.mnId(), now, report.timestamp()));
    }
}
