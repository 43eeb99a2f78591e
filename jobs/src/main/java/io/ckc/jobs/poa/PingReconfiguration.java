package io.ckc.jobs.poa;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * The operator's table of ping-rate intervals → window-length factor (paper section 5.4): from the
 * network-wide ping rate, by how much to multiply the ping window. A low rate can mean nodes are
 * gone or just slow; a longer window tells the two apart. Written as
 * {@code from-to:factor,...}, for example {@code 0-0.5:2,0.5-0.8:1.5,0.8-1:1}: {@code from}
 * inclusive, {@code to} exclusive except for the last interval, which includes 1.
 */
public final class PingReconfiguration implements Serializable {

    /** One row: ping rates in [from, to) multiply the window by factor. */
    public record Band(double from, double to, double factor) implements Serializable {
    }

    public static final String DEFAULT_TABLE = "0-0.5:2,0.5-0.8:1.5,0.8-0.95:1,0.95-1:0.8";

    private final List<Band> bands;
    private final long minWindowMs;
    private final long maxWindowMs;

    public PingReconfiguration(List<Band> bands, long minWindowMs, long maxWindowMs) {
        if (bands.isEmpty()) {
            throw new IllegalArgumentException("the ping-rate table needs at least one interval");
        }
        if (minWindowMs <= 0 || maxWindowMs < minWindowMs) {
            throw new IllegalArgumentException("ping window bounds must satisfy 0 < min <= max");
        }
        this.bands = List.copyOf(bands);
        this.minWindowMs = minWindowMs;
        this.maxWindowMs = maxWindowMs;
    }

    public static List<Band> parse(String table) {
        List<Band> bands = new ArrayList<>();
        for (String row : table.split(",")) {
            String[] rangeAndFactor = row.trim().split(":");
            String[] range = rangeAndFactor.length == 2 ? rangeAndFactor[0].split("-") : new String[0];
            if (range.length != 2) {
                throw new IllegalArgumentException("ping-rate table row '" + row + "' is not from-to:factor");
            }
            double from = Double.parseDouble(range[0].trim());
            double to = Double.parseDouble(range[1].trim());
            double factor = Double.parseDouble(rangeAndFactor[1].trim());
            if (from < 0 || to > 1 || from >= to || factor <= 0) {
                throw new IllegalArgumentException("ping-rate table row '" + row
                        + "': need 0 <= from < to <= 1 and a positive factor");
            }
            bands.add(new Band(from, to, factor));
        }
        return bands;
    }

    /** The factor for this network-wide ping rate; 1 when no interval holds it. */
    public double factorFor(double pingRate) {
        for (int i = 0; i < bands.size(); i++) {
            Band band = bands.get(i);
            boolean last = band.to() >= 1.0;
            if (pingRate >= band.from() && (pingRate < band.to() || (last && pingRate <= band.to()))) {
                return band.factor();
            }
        }
        return 1.0;
    }

    /** The new window length for this ping rate, within the bounds and never longer than the interval. */
    public long nextWindowMs(long currentWindowMs, long intervalMs, double pingRate) {
        double factor = factorFor(pingRate);
        long next = Math.round(currentWindowMs * factor);
        return Math.max(minWindowMs, Math.min(Math.min(maxWindowMs, intervalMs), next));
    }
}
