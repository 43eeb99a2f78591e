package io.ckc.protocol.mrudp;

import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.Frame;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * One side of a reliable, ordered MR-UDP-like session: sequence numbers, acknowledgements,
 * retransmission with exponential backoff and jitter, a bounded number of retries, in-order delivery
 * with a bounded reorder buffer and duplicate suppression. The retransmission timeout follows the
 * measured round trip (RFC 6298: smoothed RTT plus four times its variation, sampled only from
 * frames sent once, Karn's rule), never below the configured initial timeout: when the peer or the
 * path slows down, frames that are merely late are not sent again, which is what turned an overload
 * into a collapse. New frames also wait for a slot in the socket's {@link CongestionWindow}, if it
 * has one. Pure state: it transmits through the given
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
        final long firstSentMs;
        /** When its content stops being deliverable, on the callers' clock; {@link #NO_EXPIRY} for never. */
        final long expiresAtMs;
        int attempts;
        long timeoutMs;
        long deadline;
        /**
         * Whether it holds a slot of the socket's window: from its first transmission until it is acknowledged,
         * refused or dropped, or times out while its peer has never answered the session.
         */
        boolean holdsSlot;

        Outgoing(Body body, long expiresAtMs, long timeoutMs, long now, double jitter) {
            this.body = body;
            this.expiresAtMs = expiresAtMs;
            this.firstSentMs = now;
            this.attempts = 1;
            this.timeoutMs = timeoutMs;
            this.deadline = now + Backoff.jittered(timeoutMs, jitter);
        }
    }

    private record Queued(Body body, long sinceMs, long expiresAtMs) {
    }

    /** The expiry of a body that never expires. */
    public static final long NO_EXPIRY = Long.MAX_VALUE;

    /** Clock granularity of the callers' ticks (RFC 6298's G). */
    private static final long GRANULARITY_MS = 10;

    private final UUID mnId;
    private final long epoch;
    private final ReliabilityConfig config;
    private final Consumer<Frame> output;
    /** Shared by the sessions of one socket; null: only the send window bounds this session. */
    private CongestionWindow window;
    /** Whether {@link #window} counts this session among its flows: it has frames in flight or waiting. */
    private boolean countedAsFlow;

    private int nextSendSeq = 1;
    /*
     * The frames in flight, those waiting for a slot, and those received ahead of a missing one: each null while
     * empty. Why: a gateway holds a session per node, a million of them idle, and the three empty collections were
     * about 200 bytes of each (an array deque's 16 slots, a hash map's table kept after its last entry left).
     */
    private LinkedHashMap<Integer, Outgoing> unacked;
    private ArrayDeque<Queued> queued;
    private int nextExpected = 1;
    private TreeMap<Integer, Body> reorderBuffer;
    /**
     * The refusals of the latest received frames the owner refused, by sequence number: a peer whose
     * copy of the refusal was lost sends the frame again, and must get the refusal again, not an ack
     * that would tell it the refused frame was taken. Made on the first refusal: most sessions have none.
     */
    private Map<Integer, Frame> refusals;
    /**
     * Received frames handed to the owner that it has neither acknowledged nor refused yet (a gateway
     * acknowledges a message once Kafka has it): a repeat of one is left unanswered, since an ack now
     * would tell the peer it was taken before it was. Made on first use, emptied as answers go out.
     */
    private Set<Integer> unanswered;
    private long retransmissions;
    private boolean broken;
    /** No frame is due before this (a lower bound: an acknowledged frame may have held it); Long.MAX_VALUE when none is in flight. */
    private long nextDeadline = Long.MAX_VALUE;
    /** When the peer last showed it is alive (an ack, data, or any frame the owner reports with {@link #heard}). */
    private long lastHeardMs = Long.MIN_VALUE;
    /**
     * Whether the peer ever answered this session (acknowledged a frame of it, or the connect that opened it): only
     * then does its silence say the path is full.
     */
    private boolean peerAnswered;
    /** Until when this session's congestion has been signalled to its window: one signal per retransmission timeout. */
    private long congestedUntilMs = Long.MIN_VALUE;
    /** Smoothed round trip and its variation in ms; negative until the first sample. */
    private double srttMs = -1;
    private double rttVarMs;
    private long rtoMs;

    public ReliableSession(UUID mnId, long epoch, ReliabilityConfig config, Consumer<Frame> output) {
        this(mnId, epoch, config, null, output);
    }

    /** A session whose new frames also wait for a slot in {@code window}, shared with the other sessions of its socket. */
    public ReliableSession(UUID mnId, long epoch, ReliabilityConfig config, CongestionWindow window,
                           Consumer<Frame> output) {
        this.mnId = mnId;
        this.epoch = epoch;
        this.config = config;
        this.window = window;
        this.output = output;
        this.rtoMs = config.initialRetransmitMs();
    }

    public UUID mnId() {
        return mnId;
    }

    public long epoch() {
        return epoch;
    }

    /** Sends a body reliably, or queues it while the send window or the socket's congestion window is full. */
    public void send(Body body, long now) {
        send(body, now, NO_EXPIRY);
    }

    /**
     * Sends a body that stops being deliverable at {@code expiresAtMs} (on the callers' clock): a
     * {@link Body.Delivery} that leaves, first or again, at or after that time leaves as {@link Body.Expired}
     * instead, so its content never arrives late; an acknowledgement still returns the delivery (the peer had
     * it), a refusal too (it did not).
     */
    public void send(Body body, long now, long expiresAtMs) {
        if (queued == null && mayTransmit()) {
            transmitNew(body, expiresAtMs, now);
        } else {
            if (queued == null) {
                queued = new ArrayDeque<>(4);
            }
            queued.add(new Queued(body, now, expiresAtMs));
        }
        syncFlow();
    }

    /**
     * Removes and returns the queued bodies that waited at least {@code maxDelayMs} for a slot and were
     * never sent: under a sustained overload the sender sheds what is too late to matter instead of
     * letting the queue, and every later message's latency, grow without bound.
     */
    public List<Body> expireQueued(long now, long maxDelayMs) {
        if (queued == null || now - queued.peekFirst().sinceMs() < maxDelayMs) {
            return List.of();
        }
        List<Body> expired = new ArrayList<>();
        while (queued != null && now - queued.peekFirst().sinceMs() >= maxDelayMs) {
            expired.add(pollQueued().body());
        }
        syncFlow();
        return expired;
    }

    /**
     * The peer answered the connect that opened this session (a node's session starts on its gateway's
     * acknowledgement of its connect; a gateway's starts on the node's connect, before the node answered anything):
     * from now on its frames timing out are a sign of congestion.
     */
    public void connectAnswered() {
        peerAnswered = true;
    }

    /** Handles an acknowledgement; returns the acknowledged body, or null for an unknown or repeated ack. */
    public Body onAck(int seq, long now) {
        heard(now);
        Outgoing acked = removeUnacked(seq);
        if (acked == null) {
            return null;
        }
        peerAnswered = true;
        if (acked.attempts == 1) { // Karn: the ack of a retransmitted frame may answer any of its copies
            sampleRoundTrip(Math.max(0, now - acked.firstSentMs));
        }
        leaveWindow(acked, acked.attempts == 1);
        fillWindow(now);
        return acked.body;
    }

    /**
     * The peer refused a data frame (an error naming its sequence number): it leaves the window
     * unacknowledged, and is returned (null if unknown). {@code congested}: the peer refused it because
     * it is overloaded (BUSY), which the socket's congestion window takes as it takes a timeout, so
     * the sessions of a socket send less while the peer turns messages away.
     */
    public Body onRefused(int seq, long now, boolean congested) {
        heard(now);
        Outgoing refused = removeUnacked(seq);
        if (refused == null) {
            return null;
        }
        leaveWindow(refused, false);
        if (congested) {
            congested(now, rtoMs);
        }
        fillWindow(now);
        return refused.body;
    }

    /**
     * Handles a data frame. Returns the bodies that are now deliverable in order (possibly none).
     * A duplicate of an already delivered frame is acknowledged again at once, since its first
     * acknowledgement may have been lost.
     */
    public List<Received> onData(int seq, Body body) {
        int distance = seq - nextExpected;
        if (distance < 0) {
            if (unanswered != null && unanswered.contains(seq)) {
                return List.of(); // its answer is still to come
            }
            Frame refusal = refusals == null ? null : refusals.get(seq);
            output.accept(refusal != null ? refusal : new Frame.Ack(mnId, epoch, seq));
            return List.of();
        }
        if (distance >= config.receiveWindow()) {
            return List.of(); // beyond the window: the sender retransmits
        }
        Body buffered = reorderBuffer == null ? null : reorderBuffer.get(seq);
        if (buffered != null) {
            // A delivery held behind a missing frame, sent again as Expired: its deadline passed while it waited, so it
            // goes up as that question, not with its content (under 20% loss one reached its node 2.9 s late).
            if (body instanceof Body.Expired expired && buffered instanceof Body.Delivery delivery
                    && delivery.messageId().equals(expired.messageId())) {
                reorderBuffer.put(seq, body);
            }
            return List.of(); // already buffered: the sender retransmits until it is answered
        }
        if (seq != nextExpected) {
            if (reorderBuffer == null) {
                reorderBuffer = new TreeMap<>();
            }
            reorderBuffer.put(seq, body);
            return List.of();
        }
        List<Received> ready = new ArrayList<>(1);
        Body next = body;
        while (next != null) {
            ready.add(new Received(nextExpected, next));
            if (unanswered == null) {
                unanswered = new HashSet<>();
            }
            unanswered.add(nextExpected);
            nextExpected++;
            next = reorderBuffer == null ? null : reorderBuffer.remove(nextExpected);
        }
        if (reorderBuffer != null && reorderBuffer.isEmpty()) {
            reorderBuffer = null;
        }
        return ready;
    }

    /**
     * Moves the session to another socket's window (or to none): the frames in flight leave the old
     * window and count in the new one. Call it on the old socket's thread with null, then on the new
     * one's with its window.
     */
    public void useWindow(CongestionWindow next) {
        if (unacked != null) {
            unacked.forEach((seq, out) -> leaveWindow(out, false));
        }
        if (countedAsFlow) {
            countedAsFlow = false;
            if (window != null) {
                window.flowEnded();
            }
        }
        window = next;
        if (next != null && unacked != null) {
            unacked.forEach((seq, out) -> out.holdsSlot = true);
            next.adopt(unacked.size());
        }
        syncFlow();
    }

    /** The peer showed it is alive (any valid frame of this session). */
    public void heard(long now) {
        lastHeardMs = Math.max(lastHeardMs, now);
    }

    /** Refuses a received data frame with this error frame, and refuses it again if the peer repeats it. */
    public void refuse(int seq, Frame refusal) {
        if (refusals == null) {
            int remembered = config.receiveWindow(); // a frame older than the window is not sent again
            refusals = new LinkedHashMap<>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Integer, Frame> eldest) {
                    return size() > remembered;
                }
            };
        }
        refusals.put(seq, refusal);
        answered(seq);
        output.accept(refusal);
    }

    /** Acknowledges a received data frame to the peer. */
    public void acknowledge(int seq) {
        answered(seq);
        output.accept(new Frame.Ack(mnId, epoch, seq));
    }

    private void answered(int seq) {
        if (unanswered != null) {
            unanswered.remove(seq);
        }
    }

    /** Retransmits frames whose timeout passed; reports a broken session once a frame ran out of retries. */
    public TickResult tick(long now) {
        if (broken) {
            return TickResult.BROKEN;
        }
        if (queued != null) {
            fillWindow(now); // a slot may have opened: another session of the socket had an ack
        }
        if (now < nextDeadline) { // the common case, every tick of every session: nothing is due
            return unacked == null ? TickResult.IDLE : TickResult.IN_FLIGHT;
        }
        long earliest = Long.MAX_VALUE;
        for (Map.Entry<Integer, Outgoing> entry : unacked == null ? Set.<Map.Entry<Integer, Outgoing>>of()
                : unacked.entrySet()) {
            Outgoing out = entry.getValue();
            if (out.deadline > now) {
                earliest = Math.min(earliest, out.deadline);
                continue;
            }
            // Why not broken as soon as the budget is spent: a peer that answered anything since the frame
            // first left is alive, only slow (an overloaded machine, a queue); dropping its session then
            // turns an overload into a reconnect storm. It stays broken-proof up to 4× the budget.
            if (out.attempts > config.maxRetries()
                    && (lastHeardMs < out.firstSentMs || out.attempts > 4 * config.maxRetries())) {
                broken = true;
                return TickResult.BROKEN;
            }
            // A peer that never answered this session (a connect flood's sessions, a flooding program, a node gone
            // before its first answer) says nothing about the path: its timeouts do not halve the socket's window, and
            // its timed-out frames leave it. Otherwise its frames held every slot once the window was at its floor,
            // and its timeouts held it there: every other session of the socket (a gateway loop's) got nothing sent.
            // A peer that answered before and goes quiet is congestion, as in TCP: the window halves and its frames
            // keep their slots while they are retransmitted.
            if (peerAnswered) {
                congested(now, out.timeoutMs);
            } else {
                leaveWindow(out, false);
            }
            out.attempts++;
            out.timeoutMs = Math.min(out.timeoutMs * 2, config.maxRetransmitMs());
            out.deadline = now + Backoff.jittered(out.timeoutMs, config.jitter());
            earliest = Math.min(earliest, out.deadline);
            retransmissions++;
            output.accept(new Frame.Data(mnId, epoch, entry.getKey(), onTheWire(out.body, out.expiresAtMs, now)));
        }
        nextDeadline = earliest;
        syncFlow();
        return unacked == null ? TickResult.IDLE : TickResult.IN_FLIGHT;
    }

    /**
     * When {@link #tick} may next have a frame to retransmit: no later than the earliest deadline of a frame in flight
     * (earlier once that frame was acknowledged), {@link Long#MAX_VALUE} once a tick found none in flight.
     */
    public long nextDeadline() {
        return nextDeadline;
    }

    public boolean hasInFlight() {
        return unacked != null || queued != null;
    }

    /** Frames sent and not acknowledged yet. */
    public int unacknowledged() {
        return unacked == null ? 0 : unacked.size();
    }

    /** Frames waiting for room in the send or congestion window, not sent yet. */
    public int queued() {
        return queued == null ? 0 : queued.size();
    }

    public long retransmissions() {
        return retransmissions;
    }

    /** The timeout a frame sent now starts with. */
    public long retransmitTimeoutMs() {
        return rtoMs;
    }

    /**
     * How long an answer may take on this path, unbounded by the configured retransmit floor: the smoothed round
     * trip and four times its variation (RFC 6298's formula); 0 before the first sample.
     */
    public long roundTripTimeoutMs() {
        return srttMs < 0 ? 0 : (long) Math.ceil(srttMs + Math.max(GRANULARITY_MS, 4 * rttVarMs));
    }

    private void sampleRoundTrip(long sampleMs) {
        if (srttMs < 0) {
            srttMs = sampleMs;
            rttVarMs = sampleMs / 2.0;
        } else {
            rttVarMs = 0.75 * rttVarMs + 0.25 * Math.abs(srttMs - sampleMs);
            srttMs = 0.875 * srttMs + 0.125 * sampleMs;
        }
        rtoMs = Math.max(config.initialRetransmitMs(), Math.min(roundTripTimeoutMs(), config.maxRetransmitMs()));
    }

    /** Removes and returns every body not yet acknowledged, in send order: the unsent messages of a closing session. */
    public List<Body> drainUnacknowledged() {
        return new ArrayList<>(drainUnacknowledgedBySeq().values());
    }

    /**
     * Removes every body not yet acknowledged and returns it under the sequence number it was sent with; those
     * still queued, never sent, under the numbers that would have followed, in order.
     */
    public NavigableMap<Integer, Body> drainUnacknowledgedBySeq() {
        NavigableMap<Integer, Body> unsent = new TreeMap<>();
        if (unacked != null) {
            unacked.forEach((seq, out) -> unsent.put(seq, out.body));
            unacked.forEach((seq, out) -> leaveWindow(out, false));
            unacked = null;
        }
        nextDeadline = Long.MAX_VALUE;
        int next = nextSendSeq;
        if (queued != null) {
            for (Queued waiting : queued) {
                unsent.put(next++, waiting.body());
            }
            queued = null;
        }
        syncFlow();
        return unsent;
    }

    private void fillWindow(long now) {
        while (queued != null && mayTransmit()) {
            Queued next = pollQueued();
            transmitNew(next.body(), next.expiresAtMs(), now);
        }
        syncFlow();
    }

    /** Whether a new frame may leave now; takes its congestion-window slot if so. */
    private boolean mayTransmit() {
        return unacknowledged() < config.sendWindow() && (window == null || window.tryAcquire());
    }

    /** Takes the first queued body; the queue goes when it is empty. */
    private Queued pollQueued() {
        Queued first = queued.poll();
        if (queued.isEmpty()) {
            queued = null;
        }
        return first;
    }

    /** Takes a frame out of flight, if it is in flight; the map goes when it is empty. */
    private Outgoing removeUnacked(int seq) {
        if (unacked == null) {
            return null;
        }
        Outgoing out = unacked.remove(seq);
        if (unacked.isEmpty()) {
            unacked = null;
        }
        return out;
    }

    private void transmitNew(Body body, long expiresAtMs, long now) {
        int seq = nextSendSeq++;
        Outgoing out = new Outgoing(body, expiresAtMs, rtoMs, now, config.jitter());
        out.holdsSlot = window != null;
        if (unacked == null) {
            unacked = new LinkedHashMap<>(4);
        }
        unacked.put(seq, out);
        nextDeadline = Math.min(nextDeadline, out.deadline);
        output.accept(new Frame.Data(mnId, epoch, seq, onTheWire(body, expiresAtMs, now)));
    }

    /** A frame gives back its slot of the socket's window, if it still holds one. */
    private void leaveWindow(Outgoing out, boolean grow) {
        if (out.holdsSlot && window != null) {
            window.release(grow);
        }
        out.holdsSlot = false;
    }

    /** Halves this session's share of its window, at most once per retransmission timeout. */
    private void congested(long now, long timeoutMs) {
        if (window != null && now >= congestedUntilMs) {
            window.congested();
            congestedUntilMs = now + timeoutMs;
        }
    }

    /** Joins or leaves the window's flows as the session has frames in flight or waiting, or none. */
    private void syncFlow() {
        boolean flowing = window != null && hasInFlight();
        if (flowing != countedAsFlow) {
            countedAsFlow = flowing;
            if (flowing) {
                window.flowStarted();
            } else {
                window.flowEnded();
            }
        }
    }

    /** What a body's frame carries now: a delivery past its expiry goes without its content. */
    private static Body onTheWire(Body body, long expiresAtMs, long now) {
        return now >= expiresAtMs && body instanceof Body.Delivery delivery ? new Body.Expired(delivery.messageId()) : body;
    }
}
