package io.ckc.perf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The faults of one {@code perf faults} run, drawn from a seed: which kinds, in what order, on which
 * gateway, and when. The same seed, kinds, count and gateways draw the same plan.
 */
public record FaultPlan(List<Fault> faults) {

    /** What can go wrong, as the run injects it. */
    public enum Kind {
        /** {@code kill -9} of the Flink TaskManager, which the run starts again: every job restarts from its checkpoint. */
        TASKMANAGER_KILL(false),
        /** The broker stopped with SIGTERM (a clean shutdown), then started again on its data. */
        BROKER_STOP(false),
        /** {@code kill -9} of the broker, then started again on its data (log recovery). */
        BROKER_KILL(false),
        /** {@code kill -9} of one gateway's process, started again; its nodes move to the others meanwhile. */
        GATEWAY_KILL(true),
        /** A share of the nodes lose their link at once and reconnect ({@code MobileNode.linkLost}). */
        RECONNECT_BURST(false),
        /** A share of the datagrams to and from one gateway dropped, for a while. */
        PACKET_LOSS(true),
        /** One gateway's datagrams limited to a low rate, for a while. */
        RATE_LIMIT(true);

        /** Whether it strikes one gateway. */
        final boolean onAGateway;

        Kind(boolean onAGateway) {
            this.onAGateway = onAGateway;
        }

        /** Whether it lasts a while and is then lifted (recovery counts from the lift), not a single blow. */
        boolean lasts() {
            return this == PACKET_LOSS || this == RATE_LIMIT;
        }

        String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        static Kind of(String label) {
            return Arrays.stream(values()).filter(k -> k.label().equals(label)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no fault kind " + label + "; kinds: "
                            + String.join(",", Arrays.stream(values()).map(Kind::label).toList())));
        }
    }

    /** The {@code index}-th fault (from 1): its kind, the gateway it strikes (null if none), when (seconds into the run). */
    public record Fault(int index, Kind kind, String gateway, double atSeconds) {
        String describe() {
            return kind.label() + (gateway == null ? "" : " " + gateway);
        }
    }

    /**
     * At least {@code total} faults, each of {@code kinds} at least {@code perKind} times, shuffled by
     * {@code seed}; the first at {@code firstAtSeconds}, then one every {@code intervalSeconds}, each moved
     * later by up to {@code jitterSeconds}; the gateway of each that strikes one drawn from {@code gateways}.
     */
    static FaultPlan draw(long seed, List<Kind> kinds, int total, int perKind, List<String> gateways, double firstAtSeconds,
                          double intervalSeconds, double jitterSeconds) {
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("no fault kind to inject");
        }
        if (gateways.isEmpty() && kinds.stream().anyMatch(k -> k.onAGateway)) {
            throw new IllegalArgumentException("faults on a gateway need gateways");
        }
        Random random = new Random(seed);
        List<Kind> drawn = new ArrayList<>();
        for (Kind kind : kinds) {
            for (int i = 0; i < perKind; i++) {
                drawn.add(kind);
            }
        }
        while (drawn.size() < total) {
            drawn.add(kinds.get(random.nextInt(kinds.size())));
        }
        Collections.shuffle(drawn, random);
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < drawn.size(); i++) {
            Kind kind = drawn.get(i);
            String gateway = kind.onAGateway ? gateways.get(random.nextInt(gateways.size())) : null;
            double at = firstAtSeconds + i * intervalSeconds + random.nextDouble() * jitterSeconds;
            faults.add(new Fault(i + 1, kind, gateway, Math.round(at * 10) / 10.0));
        }
        return new FaultPlan(List.copyOf(faults));
    }

    long count(Kind kind) {
        return faults.stream().filter(f -> f.kind() == kind).count();
    }

    long kinds() {
        return faults.stream().map(Fault::kind).distinct().count();
    }
}
