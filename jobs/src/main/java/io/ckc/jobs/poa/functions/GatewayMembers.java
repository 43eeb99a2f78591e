package io.ckc.jobs.poa.functions;

import io.ckc.jobs.poa.GatewayView;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;

import java.util.ArrayList;
import java.util.List;

/**
 * The global step's record of each gateway's nodes, as its latest ping window gave them, in the window's parts: each
 * view's part is written on its own and read only when a round moves nodes off that gateway or the gateway is lost.
 * Why: a gateway of a million nodes has 500 parts of 2,000; kept as one list, every window would write the million
 * again and every balancing round (each two seconds) read it, for a gateway that gives no node away.
 */
final class GatewayMembers implements BalancingRounds.Members {

    private final MapState<String, List<String>> parts;
    private final MapState<String, Integer> partCounts;

    GatewayMembers(RuntimeContext state) {
        parts = state.getMapState(new MapStateDescriptor<>("gateway-member-parts", TypeInformation.of(String.class),
                TypeInformation.of(new TypeHint<List<String>>() { })));
        partCounts = state.getMapState(new MapStateDescriptor<>("gateway-member-part-counts", String.class,
                Integer.class));
    }

    /** Keeps the view's part of its gateway's nodes, if it carries one; a window of fewer parts drops the others. */
    void update(GatewayView view) throws Exception {
        if (view.members() == null) {
            return;
        }
        String gatewayId = view.gatewayId();
        parts.put(key(gatewayId, view.membersPart()), view.members());
        Integer before = partCounts.get(gatewayId);
        for (int part = view.membersParts(); before != null && part < before; part++) {
            parts.remove(key(gatewayId, part));
        }
        partCounts.put(gatewayId, view.membersParts());
    }

    /** The gateway's nodes, or null if none are known. */
    @Override
    public List<String> of(String gatewayId) throws Exception {
        Integer count = partCounts.get(gatewayId);
        if (count == null) {
            return null;
        }
        List<String> nodes = new ArrayList<>();
        for (int part = 0; part < count; part++) {
            List<String> some = parts.get(key(gatewayId, part));
            if (some != null) {
                nodes.addAll(some);
            }
        }
        return nodes;
    }

    void forget(String gatewayId) throws Exception {
        Integer count = partCounts.get(gatewayId);
        for (int part = 0; count != null && part < count; part++) {
            parts.remove(key(gatewayId, part));
        }
        partCounts.remove(gatewayId);
    }

    private static String key(String gatewayId, int part) {
        return gatewayId + "#" + part;
    }
}
