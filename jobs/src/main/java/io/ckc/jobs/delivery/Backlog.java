package io.ckc.jobs.delivery;

/**
 * The bookkeeping of one node's pending messages, in one state value so that a message costs one
 * read and one write of it.
 *
 * @param nextSeq the order number the next message gets
 * @param count how many messages are pending
 * @param timerAt the processing time of the node's expiry timer, 0 for none
 */
public record Backlog(long nextSeq, int count, long timerAt) {

    public static final Backlog EMPTY = new Backlog(0, 0, 0);

    public Backlog added() {
        return new Backlog(nextSeq + 1, count + 1, timerAt);
    }

    public Backlog removed() {
        return new Backlog(nextSeq, count - 1, timerAt);
    }

    public Backlog withTimer(long at) {
        return new Backlog(nextSeq, count, at);
    }
}
