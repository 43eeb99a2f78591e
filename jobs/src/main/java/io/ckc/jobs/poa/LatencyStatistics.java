package io.ckc.jobs.poa;

import io.ckc.protocol.records.ConnectionStatistics;

import java.util.Arrays;

/** Connection Statistics of one ping window (paper section 5.4), computed exactly from its latencies. */
public final class LatencyStatistics {

    private LatencyStatistics() {
    }

    /**
     * @param latenciesMicros ping-to-pong time of every pong inside the window
     * @param connected       nodes connected when the window closed
     * @param pinged          of those, the nodes pinged when the window opened
     * @param complete        whether every part of the window's report arrived
     */
    public static ConnectionStatistics of(String gatewayId, long pingSentAtMicros, long windowMs,
                                          long[] latenciesMicros, int connected, int pinged, boolean complete) {
        int n = latenciesMicros.length;
        Double pingRate = pinged == 0 ? null : Math.min(1.0, (double) n / pinged);
        if (n == 0) {
            return new ConnectionStatistics(gatewayId, pingSentAtMicros, windowMs, connected, pinged, 0, pingRate,
                    null, null, null, null, null, null, complete);
        }
        long[] sorted = latenciesMicros.clone();
        Arrays.sort(sorted);
        double sum = 0;
        for (long latency : sorted) {
            sum += latency;
        }
        double mean = sum / n;
        double squares = 0;
        for (long latency : sorted) {
            squares += (latency - mean) * (latency - mean);
        }
        double variance = squares / n;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
        return new ConnectionStatistics(gatewayId, pingSentAtMicros, windowMs, connected, pinged, n, pingRate,
                ms(mean), ms(Math.sqrt(variance)), variance / 1e6, ms(median), ms(sorted[0]), ms(sorted[n - 1]), complete);
    }

    private static double ms(double micros) {
        return micros / 1000.0;
    }
}
