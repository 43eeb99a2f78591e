package io.ckc.jobs.poa;

import io.ckc.udfs.GatewayRanking;
import io.ckc.udfs.ranking.LatencyRanking;
import io.ckc.udfs.ranking.ResourceLoadRanking;
import io.ckc.udfs.ranking.UniformRanking;
import org.apache.flink.util.ParameterTool;

import java.io.Serializable;

/**
 * Every parameter of the PoA manager, from command-line flags (defaults in brackets):
 *
 * <ul>
 *   <li>{@code --liveness-periods} [3]: X, a gateway with no LoadReport in the last X of its report
 *       periods, and no healthy ping window either, is inactive</li>
 *   <li>{@code --report-period-ms} [2000]: the period assumed for a gateway until its first LoadReport</li>
 *   <li>{@code --healthy-ping-rate} [0.5]: a ping window with at least this ping rate (or no nodes)
 *       also counts as a sign of life</li>
 *   <li>{@code --check-interval-ms} [2000]: how often the gateway list is written and a balancing round runs</li>
 *   <li>{@code --ranking} [resource-load]: resource-load, latency, uniform, or the class name of a
 *       {@link GatewayRanking}</li>
 *   <li>{@code --balance} [true]: whether handovers are ordered at all</li>
 *   <li>{@code --imbalance-abs} [10] and {@code --imbalance-rel} [0.05]: a round moves nodes only when
 *       some gateway is more than this many nodes and this share away from its ideal count</li>
 *   <li>{@code --handover-cooldown-ms} [300000]: a node is not handed over again within this time</li>
 *   <li>{@code --max-handovers-per-round} [1000]</li>
 *   <li>{@code --settle-ms} [2000] and {@code --max-settle-ms} [30000]: after a round that moved
 *       nodes, the next one waits until every gateway has reported at least settle-ms after it and
 *       90% of the moved nodes have arrived, or until max-settle-ms passed; meanwhile a donor's count
 *       is read without the nodes still on their way, so no round moves the same surplus twice</li>
 *   <li>{@code --ping-interval-ms} [5000], {@code --ping-window-ms} [1000]: the PingConfig a new gateway gets</li>
 *   <li>{@code --ping-reconfig} [true], {@code --ping-rate-factors} [{@value PingReconfiguration#DEFAULT_TABLE}],
 *       {@code --ping-window-min-ms} [the ping window], {@code --ping-window-max-ms} [the interval]: ping reconfiguration</li>
 *   <li>{@code --gateway-retention-ms} [3600000]: a gateway inactive this long is forgotten, everything the
 *       manager kept of it cleared; one that comes back after that is listed again once it restarts (its HelloPoA)</li>
 * </ul>
 */
public record PoaSettings(int livenessPeriods, long reportPeriodMs, double healthyPingRate, long checkIntervalMs,
                          String ranking, boolean balance, Balancer.Settings balancer, long handoverCooldownMs,
                          long settleMs, long maxSettleMs, long pingIntervalMs, long pingWindowMs, boolean pingReconfig,
                          PingReconfiguration pingReconfiguration, long gatewayRetentionMs) implements Serializable {

    public PoaSettings {
        if (livenessPeriods < 1 || reportPeriodMs <= 0 || checkIntervalMs <= 0 || handoverCooldownMs < 0
                || settleMs < 0 || maxSettleMs < settleMs || pingIntervalMs <= 0 || pingWindowMs <= 0 || pingWindowMs > pingIntervalMs
                || gatewayRetentionMs <= 0) {
            throw new IllegalArgumentException("PoA settings out of range: liveness periods >= 1, periods and "
                    + "intervals positive, ping window no longer than the ping interval");
        }
        rankingFor(ranking); // fail at submission, not on the task manager
    }

    public static PoaSettings fromArgs(ParameterTool params) {
        long pingInterval = params.getLong("ping-interval-ms", 5_000);
        long pingWindow = params.getLong("ping-window-ms", 1_000);
        return new PoaSettings(
                params.getInt("liveness-periods", 3),
                params.getLong("report-period-ms", 2_000),
                params.getDouble("healthy-ping-rate", 0.5),
                params.getLong("check-interval-ms", 2_000),
                params.get("ranking", ResourceLoadRanking.NAME),
                params.getBoolean("balance", true),
                new Balancer.Settings(params.getInt("imbalance-abs", 10), params.getDouble("imbalance-rel", 0.05),
                        params.getInt("max-handovers-per-round", 1_000)),
                params.getLong("handover-cooldown-ms", 300_000),
                params.getLong("settle-ms", 2_000),
                params.getLong("max-settle-ms", 30_000),
                pingInterval,
                pingWindow,
                params.getBoolean("ping-reconfig", true),
                new PingReconfiguration(
                        PingReconfiguration.parse(params.get("ping-rate-factors", PingReconfiguration.DEFAULT_TABLE)),
                        params.getLong("ping-window-min-ms", pingWindow), params.getLong("ping-window-max-ms", pingInterval)),
                params.getLong("gateway-retention-ms", 3_600_000));
    }

    /** The shipped rankings by name, or an operator's class by its fully qualified name. */
    public static GatewayRanking rankingFor(String name) {
        switch (name) {
            case ResourceLoadRanking.NAME:
                return new ResourceLoadRanking();
            case LatencyRanking.NAME:
                return new LatencyRanking();
            case UniformRanking.NAME:
                return new UniformRanking();
            default:
                try {
                    return Class.forName(name).asSubclass(GatewayRanking.class).getDeclaredConstructor().newInstance();
                } catch (ReflectiveOperationException | ClassCastException e) {
                    throw new IllegalArgumentException("--ranking '" + name + "' is neither resource-load, latency, "
                            + "uniform nor a GatewayRanking class with a public no-argument constructor", e);
                }
        }
    }
}
