package io.ckc.perf;

import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Receipt;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One outbound configuration in flight: what became of every message (sent, reached its node,
 * answered, expired or dropped by the core, arrived past its deadline, expired before it), the disconnection cycles
 * of the nodes that come and go, and the round-trip times of fixed and disconnecting nodes.
 * Nodes {@code [0, disconnecting)} are the disconnecting ones.
 */
final class MtdRun {

    private static final int SENT = 1;
    private static final int RECEIVED = 2;
    private static final int REPLIED = 4;
    private static final int EXPIRED = 8;
    private static final int DROPPED = 16;
    private static final int LATE = 32;
    private static final int EARLY = 64;
    /** The application's write to Kafka failed: the message never entered CKC, so it is not CKC's to lose. */
    private static final int NOT_TAKEN = 128;

    private final MtdCommand.Configuration configuration;
    private final int nodes;
    private final int messages;
    private final int disconnecting;
    private final long ttlNanos;
    private final long lateAllowanceNanos;
    private final AtomicIntegerArray state;
    private final long[] sentNanos;
    private final Map<String, Integer> indexById = new ConcurrentHashMap<>();
    private final Histogram rttFixed = histogram();
    private final Histogram rttDisconnecting = histogram();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong absences = new AtomicLong();
    /**
     * The first messages that reached their node late, or that the core expired although their node had them, each
     * with its times (and the core's reason), to tell what made them (a restart, an absence).
     */
    private final Queue<String> expiredDeliveries = new ConcurrentLinkedQueue<>();
    private static final int EXPIRED_DELIVERIES_KEPT = 100;
    private final long[] nextChange;
    private final boolean[] away;
    private final Random random = new Random(11);
    private long meanConnectedNanos;
    private long awayNanos;
    private SimulatedNodes fleet;
    /** The round trips, {@code sent} the application's unicasts: what progress and the report read. */
    final RoundTrips trips;
    /** Whether a node comes back at the gateway after the one it left, not the same. */
    private final boolean move;

    MtdRun(MtdCommand.Configuration configuration, int nodes, int messages, int disconnecting, long ttlMs,
           long lateAllowanceMs, boolean move) {
        this.move = move;
        this.trips = new RoundTrips(nodes);
        this.configuration = configuration;
        this.nodes = nodes;
        this.messages = messages;
        this.disconnecting = disconnecting;
        this.ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMs);
        this.lateAllowanceNanos = TimeUnit.MILLISECONDS.toNanos(lateAllowanceMs);
        this.state = new AtomicIntegerArray(nodes * messages);
        this.sentNanos = new long[nodes * messages];
        this.nextChange = new long[disconnecting];
        this.away = new boolean[disconnecting];
    }

    private static Histogram histogram() {
        return new Histogram(TimeUnit.MINUTES.toMicros(30), 3);
    }

    void attach(SimulatedNodes fleet) {
        this.fleet = fleet;
    }

    /** A node's side, whatever its protocol: {@link #received}, and the answer on the reply channel. */
    void delivered(SimulatedNodes nodes, int node, java.util.UUID messageId, byte[] payload) {
        if (received(payload)) {
            nodes.send(node, MtdCommand.REPLY_CHANNEL, payload);
        }
    }

    /**
     * A node's side, whatever its protocol: notes the message and checks its deadline; true if the node answers it
     * (on {@link MtdCommand#REPLY_CHANNEL}, with the same payload), false for a repeat of one it had.
     */
    boolean received(byte[] content) {
        EchoPayload payload = EchoPayload.decode(content);
        int index = payload.node() * messages + payload.seq();
        int before = set(index, RECEIVED);
        if ((before & RECEIVED) != 0) {
            duplicates.incrementAndGet();
            return false;
        }
        if ((before & EXPIRED) != 0) {
            noteExpiredDelivery("received_after_expired", index, null);
        }
        long age = System.nanoTime() - payload.sentNanos();
        if (age > ttlNanos + lateAllowanceNanos) {
            set(index, LATE);
            if (expiredDeliveries.size() < EXPIRED_DELIVERIES_KEPT) {
                long now = System.currentTimeMillis();
                expiredDeliveries.add(String.format(Locale.ROOT,
                        "late node=%d seq=%d sent=%tT.%<tL received=%tT.%<tL late_by_ms=%d away_now=%b",
                        payload.node(), payload.seq(), now - TimeUnit.NANOSECONDS.toMillis(age), now,
                        TimeUnit.NANOSECONDS.toMillis(age - ttlNanos),
                        payload.node() < disconnecting && away[payload.node()]));
            }
        }
        return true;
    }

    void sent(String messageId, int node, int seq) {
        int index = node * messages + seq;
        sentNanos[index] = System.nanoTime(); // before the id is published: a receipt finds it set
        indexById.put(messageId, index);
        set(index, SENT);
    }

    /** The application's write of message {@code messageId} to Kafka failed (the broker unreachable past its timeout). */
    void notTaken(String messageId) {
        Integer index = indexById.get(messageId);
        if (index != null) {
            set(index, NOT_TAKEN);
        }
    }

    /** The application's side: a node's answer closes the round trip. */
    void onReply(AppMessage reply) {
        EchoPayload payload = EchoPayload.decode(reply.payload());
        int index = payload.node() * messages + payload.seq();
        if ((set(index, REPLIED) & REPLIED) != 0) {
            return;
        }
        long rttMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - payload.sentNanos());
        Histogram group = payload.node() < disconnecting ? rttDisconnecting : rttFixed;
        synchronized (group) {
            group.recordValue(Math.max(0, Math.min(rttMicros, group.getHighestTrackableValue())));
        }
        trips.delivered.incrementAndGet();
        trips.record(payload.seq(), rttMicros);
    }

    void onReceipt(Receipt receipt) {
        Integer index = indexById.get(receipt.messageId());
        if (index == null) {
            return;
        }
        if (receipt.outcome() == Receipt.Outcome.EXPIRED) {
            // The core's clock decides; the allowance covers the receipt's way back and clock reading.
            if (System.nanoTime() - sentNanos[index] < ttlNanos - lateAllowanceNanos) {
                set(index, EARLY);
            }
            if ((set(index, EXPIRED) & RECEIVED) != 0) {
                noteExpiredDelivery("expired_after_received", index, receipt.detail());
            }
        } else if (receipt.outcome() == Receipt.Outcome.DROPPED) {
            set(index, DROPPED);
        }
    }

    private void noteExpiredDelivery(String what, int index, String detail) {
        if (expiredDeliveries.size() < EXPIRED_DELIVERIES_KEPT) {
            expiredDeliveries.add(String.format(Locale.ROOT, "%s node=%d seq=%d at=%tT.%<tL age_ms=%d detail=%s", what,
                    index / messages, index % messages, System.currentTimeMillis(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentNanos[index]), detail));
        }
    }

    /** Each disconnecting node first leaves at a random moment within twice the mean connected time. */
    void startDisconnecting(long startNanos, long meanConnectedNanos, long awayNanos) {
        for (int i = 0; i < disconnecting; i++) {
            nextChange[i] = startNanos + (long) (random.nextDouble() * 2 * meanConnectedNanos);
        }
        this.meanConnectedNanos = meanConnectedNanos;
        this.awayNanos = awayNanos;
    }

    /** Moves the disconnection cycles on: a node whose time has come leaves or comes back. */
    void tickDisconnections(long now) {
        for (int i = 0; i < disconnecting; i++) {
            if (nextChange[i] > now) {
                continue;
            }
            if (away[i]) {
                fleet.comeBack(i, move);
                away[i] = false;
                nextChange[i] = now + (long) ((0.5 + random.nextDouble()) * meanConnectedNanos);
            } else {
                fleet.leave(i);
                absences.incrementAndGet();
                away[i] = true;
                nextChange[i] = now + awayNanos;
            }
        }
    }

    /** The sending is over: everyone away comes back. */
    void stopDisconnecting() {
        for (int i = 0; i < disconnecting; i++) {
            if (away[i]) {
                fleet.comeBack(i, move);
                away[i] = false;
            }
            nextChange[i] = Long.MAX_VALUE;
        }
    }

    boolean allAccountedFor() {
        return repliedOrExpired() == state.length();
    }

    long repliedOrExpired() {
        long count = 0;
        for (int i = 0; i < state.length(); i++) {
            if ((state.get(i) & (REPLIED | EXPIRED | DROPPED | NOT_TAKEN)) != 0) {
                count++;
            }
        }
        return count;
    }

    String progressExtra() {
        long away = 0;
        for (boolean a : this.away) {
            if (a) {
                away++;
            }
        }
        return "  away " + away + "  absences " + absences.get();
    }

    private int set(int index, int flag) {
        return state.getAndUpdate(index, s -> s | flag);
    }

    /** What one configuration measured, in the paper's terms. */
    record Result(MtdCommand.Configuration configuration, long sent, long replied, long expired, long dropped,
                  double te, double teDisconnecting, double disconnectingFullShare, long expiredDelivered,
                  long arrivedLate, long expiredEarly, long receivedAndExpired, long unaccounted, long duplicates,
                  long absences, Histogram fixed, Histogram disconnecting, long unsent, long duplicatesDropped,
                  long appSendFailed) {

        boolean passes() {
            return te == 100.0 && (configuration.disconnectingShare() == 0 || disconnectingFullShare == 100.0)
                    && expiredDelivered == 0 && expiredEarly == 0;
        }
    }

    /** The first late arrivals and messages expired although received (up to 100), one line each, wall-clock times. */
    List<String> expiredDeliveries() {
        return List.copyOf(expiredDeliveries);
    }

    /**
     * The first messages neither answered nor reported expired or dropped (up to 100), one line each: what their node
     * did with them ({@code received}), whether it is one that comes and goes, and how long ago they were sent.
     */
    List<String> unaccountedFor() {
        List<String> lines = new java.util.ArrayList<>();
        long now = System.nanoTime();
        for (int index = 0; index < state.length() && lines.size() < EXPIRED_DELIVERIES_KEPT; index++) {
            int s = state.get(index);
            if ((s & SENT) != 0 && (s & (REPLIED | EXPIRED | DROPPED)) == 0) {
                lines.add(String.format(Locale.ROOT, "unaccounted node=%d seq=%d received=%b disconnecting=%b "
                                + "sent_ms_ago=%d", index / messages, index % messages, (s & RECEIVED) != 0,
                        index / messages < disconnecting, TimeUnit.NANOSECONDS.toMillis(now - sentNanos[index])));
            }
        }
        return lines;
    }

    Result result() {
        long sent = 0;
        long replied = 0;
        long expired = 0;
        long dropped = 0;
        long late = 0;
        long early = 0;
        long receivedAndExpired = 0;
        long unaccounted = 0;
        long notTaken = 0;
        long descDue = 0;
        long descReplied = 0;
        int descFull = 0;
        for (int node = 0; node < nodes; node++) {
            boolean full = true;
            for (int seq = 0; seq < messages; seq++) {
                int s = state.get(node * messages + seq);
                if ((s & SENT) == 0) {
                    continue;
                }
                sent++;
                boolean isExpired = (s & EXPIRED) != 0;
                boolean isReplied = (s & REPLIED) != 0;
                expired += isExpired ? 1 : 0;
                dropped += (s & DROPPED) != 0 ? 1 : 0;
                replied += isReplied ? 1 : 0;
                late += (s & LATE) != 0 ? 1 : 0;
                early += (s & EARLY) != 0 ? 1 : 0;
                unaccounted += (s & (REPLIED | EXPIRED | DROPPED | NOT_TAKEN)) == 0 ? 1 : 0;
                notTaken += (s & NOT_TAKEN) != 0 ? 1 : 0;
                receivedAndExpired += (s & RECEIVED) != 0 && isExpired ? 1 : 0;
                if (node < disconnecting && !isExpired) {
                    descDue++;
                    descReplied += isReplied ? 1 : 0;
                    full &= isReplied;
                }
            }
            if (node < disconnecting && full) {
                descFull++;
            }
        }
        double te = 100.0 * replied / Math.max(1, sent - expired);
        double teDesc = disconnecting == 0 ? Double.NaN : 100.0 * descReplied / Math.max(1, descDue);
        double fullShare = disconnecting == 0 ? Double.NaN : 100.0 * descFull / disconnecting;
        // An expired delivery is a late one (LATE is only ever set on a receipt); one its node had in time and that was
        // then reported expired (its acknowledgement lost, and an MQTT device cannot be asked) is a wrong receipt,
        // counted in receivedAndExpired.
        return new Result(configuration, sent, replied, expired, dropped, te, teDesc, fullShare, late, late,
                early, receivedAndExpired, unaccounted, duplicates.get(), absences.get(), rttFixed.copy(),
                rttDisconnecting.copy(), fleet == null ? 0 : fleet.unsent(), fleet == null ? 0 : fleet.duplicatesDroppedByNodes(),
                notTaken);
    }
}
