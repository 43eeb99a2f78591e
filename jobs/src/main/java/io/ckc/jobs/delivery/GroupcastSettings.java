package io.ckc.jobs.delivery;

import org.apache.flink.util.ParameterTool;

import java.io.Serializable;

/**
 * How a groupcast is expanded into unicasts, flags of the delivery job:
 * <ul>
 *   <li>{@code --groupcast-chunk} [500]: members handed on per step; between steps the operator
 *       takes other records and checkpoint barriers, so a large group is never one burst</li>
 *   <li>{@code --groupcast-max-rate} [0]: members per second per parallel instance, 0 for as fast as
 *       the sinks take them (Flink's back-pressure still applies)</li>
 * </ul>
 */
public record GroupcastSettings(int chunk, int maxRatePerSecond) implements Serializable {

    public static final GroupcastSettings DEFAULT = new GroupcastSettings(500, 0);

    public GroupcastSettings {
        if (chunk <= 0 || maxRatePerSecond < 0) {
            throw new IllegalArgumentException("--groupcast-chunk must be positive and --groupcast-max-rate at least 0");
        }
    }

    public static GroupcastSettings fromArgs(ParameterTool params) {
        return new GroupcastSettings(params.getInt("groupcast-chunk", DEFAULT.chunk),
                params.getInt("groupcast-max-rate", DEFAULT.maxRatePerSecond));
    }

    /** The pause after a step of {@code sent} members that keeps to the rate; 0 without a cap. */
    public long pauseAfterMs(int sent) {
        return maxRatePerSecond == 0 ? 0 : (sent * 1000L + maxRatePerSecond - 1) / maxRatePerSecond;
    }
}
