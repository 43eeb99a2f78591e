package io.ckc.udfs.groups;

import io.ckc.udfs.GroupSelection;

import java.util.Map;
import java.util.Set;

/**
 * Worked example, battery-level bands: {@code battery:low} below 20%, {@code battery:medium} up to
 * 60%, {@code battery:high} above; no group when the node did not report its battery. Battery is a
 * share in [0, 1]. Its argument moves the two thresholds, e.g. {@code "0.1,0.5"}.
 */
public final class BatteryBandSelection implements GroupSelection {

    private final double low;
    private final double high;

    public BatteryBandSelection() {
        this("0.2,0.6");
    }

    public BatteryBandSelection(String thresholds) {
        String[] parts = thresholds.split(",");
        if (parts.length != 2) {
            throw new IllegalArgumentException("battery thresholds are 'low,high', not " + thresholds);
        }
        this.low = Double.parseDouble(parts[0].trim());
        this.high = Double.parseDouble(parts[1].trim());
        if (!(0 <= low && low <= high && high <= 1)) {
            throw new IllegalArgumentException("battery thresholds need 0 <= low <= high <= 1: " + thresholds);
        }
    }

    @Override
    public String definerId() {
        return "battery-band";
    }

    @Override
    public Set<String> groupsOf(String mnId, Double latitude, Double longitude, Double battery,
                                Map<String, String> attributes) {
        if (battery == null) {
            return Set.of();
        }
        if (battery < low) {
            return Set.of("battery:low");
        }
        return Set.of(battery <= high ? "battery:medium" : "battery:high");
    }
}
