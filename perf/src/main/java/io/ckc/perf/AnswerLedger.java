package io.ckc.perf;

import org.HdrHistogram.Histogram;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests of a load per node and the answers checked against them with an {@link AnswerRule}. Each node's
 * answers come in the order of its requests (CKC keeps a node's order), so an answer goes to the node's oldest
 * request still open that the rule accepts; one that fits none but a request already answered is a duplicate, one
 * that fits nothing is wrong. Thread-safe: nodes' answers arrive on their event loops.
 */
final class AnswerLedger {

    /** Answered requests a node remembers, to tell a duplicate answer from a wrong one. */
    private static final int ANSWERED_KEPT = 256;
    /** Wrong answers kept to show. */
    private static final int EXAMPLES_KEPT = 3;

    private record Request(byte[] payload, long sentNanos) {
    }

    private final AnswerRule rule;
    private final List<ArrayDeque<Request>> open = new ArrayList<>();
    private final List<ArrayDeque<Request>> answered = new ArrayList<>();
    private final Histogram roundTrips = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    private final List<String> wrongExamples = new ArrayList<>();
    final AtomicLong sent = new AtomicLong();
    final AtomicLong right = new AtomicLong();
    final AtomicLong wrong = new AtomicLong();
    final AtomicLong duplicates = new AtomicLong();

    AnswerLedger(int nodes, AnswerRule rule) {
        this.rule = rule;
        for (int i = 0; i < nodes; i++) {
            open.add(new ArrayDeque<>());
            answered.add(new ArrayDeque<>());
        }
    }

    /** The payload of node {@code node}'s {@code seq}-th request, kept open until its answer comes. */
    byte[] request(int node, int seq) {
        byte[] payload = ("message " + seq + " from node " + node).getBytes(StandardCharsets.UTF_8);
        ArrayDeque<Request> requests = open.get(node);
        synchronized (requests) {
            requests.addLast(new Request(payload, System.nanoTime()));
        }
        return payload;
    }

    /** An answer that reached node {@code node} (after its SDK dropped repeats by message id). */
    void answer(int node, byte[] payload) {
        long now = System.nanoTime();
        ArrayDeque<Request> requests = open.get(node);
        ArrayDeque<Request> done = answered.get(node);
        synchronized (requests) {
            for (Iterator<Request> it = requests.iterator(); it.hasNext(); ) {
                Request request = it.next();
                if (rule.accepts(request.payload(), payload)) {
                    it.remove();
                    done.addLast(request);
                    if (done.size() > ANSWERED_KEPT) {
                        done.removeFirst();
                    }
                    right.incrementAndGet();
                    synchronized (roundTrips) {
                        roundTrips.recordValue(Math.min(roundTrips.getHighestTrackableValue(),
                                TimeUnit.NANOSECONDS.toMicros(now - request.sentNanos())));
                    }
                    return;
                }
            }
            for (Request request : done) {
                if (rule.accepts(request.payload(), payload)) {
                    duplicates.incrementAndGet();
                    return;
                }
            }
            wrong.incrementAndGet();
            synchronized (wrongExamples) {
                if (wrongExamples.size() < EXAMPLES_KEPT) {
                    Request oldest = requests.peekFirst();
                    wrongExamples.add("node " + node + " got '" + new String(payload, StandardCharsets.UTF_8) + "'"
                            + (oldest == null ? " with no request open"
                            : " for '" + new String(oldest.payload(), StandardCharsets.UTF_8) + "'"));
                }
            }
        }
    }

    /** Requests without an answer yet. */
    long unanswered() {
        long count = 0;
        for (ArrayDeque<Request> requests : open) {
            synchronized (requests) {
                count += requests.size();
            }
        }
        return count;
    }

    /** Round trips of the right answers, in microseconds. */
    Histogram roundTrips() {
        synchronized (roundTrips) {
            return roundTrips.copy();
        }
    }

    List<String> wrongExamples() {
        synchronized (wrongExamples) {
            return List.copyOf(wrongExamples);
        }
    }
}
