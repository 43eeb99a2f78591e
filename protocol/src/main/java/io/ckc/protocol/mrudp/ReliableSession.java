package io.ckc.protocol.mrudp;

import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.Frame;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * One side of a reliable, ordered MR-UDP-like session: sequence numbers, acknowledgements,
 * retransmission with exponential backoff, a bounded number of retries, in-order delivery with a
 * bounded reorder buffer and duplicate suppression. Pure state: it transmits through the given
 * output and is driven by {@link #tick(long)}; it is not thread-safe and is used from one thread.
 */
public final class ReliableSession {

    /** A data frame handed to the application, in sequence order; acknowledge it with {@link #acknowledge(int)}. */
    public record Received(int seq, Body body) {
    }

    /** What {@link #tick(long)} found. */
    public enum TickResult { IDLE, IN_FLIGHT, BROKEN }

    private static final class Outgoing {
        final Body body;
        int attempts;
        long timeoutMs;
        long deadline;

        Outgoing(Body body, long timeoutMs, long now) {
            this.body = body;
            this.attempts = 1;
            this.timeoutMs = timeoutMs;
            this.deadline = now + timeoutMs;
        }
    }

    private final UUID mnId;
    private final long epoch;
    private final ReliabilityConfig config;
    private final Consumer<Frame> output;

    private int nextSendSeq = 1;
    private final LinkedHashMap<Integer, Outgoing> unacked = new LinkedHashMap<>();
    private final ArrayDeque<Body> queued = new ArrayDeque<>();
    private int nextExpected = 1;
    private final TreeMap<Integer, Body> reorderBuffer = new TreeMap<>();
    private long retransmissions;
    private boolean broken;
    /** No frame is due before this (a lower bound: an acknowledged frame may have held it); Long.MAX_VALUE when none is in flight. */
    private long nextDeadline = Long.MAX_VALUE;

    public ReliableSession(UUID mnId, long epoch, ReliabilityConfig config, Consumer<Frame> output) {
        this.mnId = mnId;
        this.epoch = epoch;
        this.config = config;
        this.output = output;
    }

    public UUID mnId() {
        return mnId;
    }

    public long epoch() {
        return epoch;
    }

    /** Sends a body reliably, or queues it while the send window is full. */
    public void send(Body body, long now) {
        if (unacked.size() < config.sendWindow() && queued.isEmpty()) {
            transmitNew(body, now);
        } else {
            queued.add(body);
        }
    }

    /** Handles an acknowledgement; returns the acknowledged body, or null for an unknown or repeated ack. */
    public Body onAck(int seq, long now) {
        Outgoing acked = unacked.remove(seq);
        if (acked == null) {
            return null;
        }
        fillWindow(now);
        return acked.body;
    }

    /**
     * Handles a data frame. Returns the bodies that are now deliverable in order (possibly none).
     * A duplicate of an already delivered frame is acknowledged again at once, since its first
     * acknowledgement may have been lost.
     */
    public List<Received> onData(int seq, Body body) {
        int distance = seq - nextExpected;
        if (distance < 0) {
            acknowledge(seq);
            return List.of();
        }
        if (distance >= config.receiveWindow() || reorderBuffer.containsKey(seq)) {
            return List.of(); // beyond the window, or already buffered: the sender retransmits
        }
        reorderBuffer.put(seq, body);
        if (seq != nextExpected) {
            return List.of();
        }
        List<Received> ready = new ArrayList<>(1);
        Body next;
        while ((next = reorderBuffer.remove(nextExpected)) != null) {
            ready.add(new Received(nextExpected, next));
            nextExpected++;
        }
        return ready;
    }

    /** Acknowledges a received data frame to the peer. */
    public void acknowledge(int seq) {
        output.accept(new Frame.Ack(mnId, epoch, seq));
    }

    /** Retransmits frames whose timeout passed; reports a broken session once a frame ran out of retries. */
    public TickResult tick(long now) {
        if (broken) {
            return TickResult.BROKEN;
        }
        if (now < nextDeadline) { // the common case, every tick of every session: nothing is due
            return unacked.isEmpty() ? TickResult.IDLE : TickResult.IN_FLIGHT;
        }
        long earliest = Long.MAX_VALUE;
        for (Map.Entry<Integer, Outgoing> entry : unacked.entrySet()) {
            Outgoing out = entry.getValue();
            if (out.deadline > now) {
                earliest = Math.min(earliest, out.deadline);
                continue;
            }
            if (out.attempts > config.maxRetries()) {
                broken = true;
                return TickResult.BROKEN;
            }
            out.attempts++;
            out.timeoutMs = Math.min(out.timeoutMs * 2, config.maxRetransmitMs());
            out.deadline = now + out.timeoutMs;
            earliest = Math.min(earliest, out.deadline);
            retransmissions++;
            output.accept(new Frame.Data(mnId, epoch, entry.getKey(), out.body));
        }
        nextDeadline = earliest;
        return unacked.isEmpty() ? TickResult.IDLE : TickResult.IN_FLIGHT;
    }

    public boolean hasInFlight() {
        return !unacked.isEmpty() || !queued.isEmpty();
    }

    public long retransmissions() {
        return retransmissions;
    }

    /** Removes and returns every body not yet acknowledged, in send order: the unsent messages of a closing session. */
    public List<Body> drainUnacknowledged() {
        List<Body> unsent = new ArrayList<>(unacked.size() + queued.size());
        unacked.values().forEach(out -> unsent.add(out.body));
        unacked.clear();
        nextDeadline = Long.MAX_VALUE;
        unsent.addAll(queued);
        queued.clear();
        return unsent;
    }

    private void fillWindow(long now) {
        while (!queued.isEmpty() && unacked.size() < config.sendWindow()) {
            transmitNew(queued.poll(), now);
        }
    }

    private void transmitNew(Body body, long now) {
        int seq = nextSendSeq++;
        Outgoing out = new Outgoing(body, config.initialRetransmitMs(), now);
        unacked.put(seq, out);
        nextDeadline = Math.min(nextDeadline, out.deadline);
        output.accept(new Frame.Data(mnId, epoch, seq, body));
    }
}
