package io.ckc.gateway.core;

import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.ReceiptBatch;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executor;

/**
 * The downlink of one shard's sessions: unicasts handed to a node's link and not yet acknowledged,
 * the DELIVERED receipts their acknowledgements draw (on ckc.delivered, for every unicast the
 * delivery job routed: it holds each until then), the mini-buffer (paper section 4.2), and what
 * goes back to the core on ckc.unsent when a delivery cannot be made or a session ends with it open.
 * Confined to the shard's event loop, except {@link #open()}.
 *
 * <p>Receipts go out batched ({@link ReceiptBatch}): those settled while the loop handles what it read in one pass
 * are written as one record once the pass is over (a task queued behind it), at most {@link #RECEIPTS_PER_RECORD}
 * to a record. Why: one Kafka record per acknowledgement was a record through the producer, the broker, the delivery
 * job's source and parser per message, as many as the messages themselves.
 */
final class ShardDownlink {

    /** Receipts in one record at most: about 100 bytes each, far below the producer's request size. */
    static final int RECEIPTS_PER_RECORD = 500;

    private final CoreOptions config;
    private final CorePublisher publisher;
    private final GatewayMetrics metrics;
    private final Executor loop;
    /** Deliveries handed to a link and not yet acknowledged: the shard's part of the downlink backlog. */
    private volatile int open;
    /** Receipts settled in this pass of the loop, not yet written. */
    private List<Receipt> receipts = new ArrayList<>();

    /** @param loop the shard's event loop, where the receipts of a pass are written once it is over */
    ShardDownlink(CoreOptions config, CorePublisher publisher, GatewayMetrics metrics, Executor loop) {
        this.config = config;
        this.publisher = publisher;
        this.metrics = metrics;
        this.loop = loop;
    }

    /** Deliveries handed to a link and not acknowledged yet; read from any thread. */
    int open() {
        return open;
    }

    /**
     * Hands a unicast routed to the node's session of {@code routedEpoch} to its link, which never sends its
     * content past {@code expiresAt} (one already past it goes as a question: the node may have had it on an
     * earlier session, and says so, or refuses it as expired), or sends it back as unsent: NOT_CONNECTED when the
     * node has no session here ({@code session} null), SESSION_REPLACED when it was routed to another session of
     * the node. A session not yet announced still takes it: the node reads it once its connect is acknowledged.
     *
     * @param routed whether the delivery job routed it (and waits for its acknowledgement), not a broadcast
     */
    void deliver(Session session, Unicast unicast, long routedEpoch, Long expiresAt, boolean routed) {
        if (session == null) {
            unsent(unicast, routedEpoch, UnsentMessage.Reason.NOT_CONNECTED, false, routed);
            return;
        }
        if (session.epoch != routedEpoch) {
            // Routed to the node's session before this one (the job has not read the new one's Connected event yet):
            // back to the job, which sends it on the new session after what the old one left unacknowledged. Taken
            // here, it would overtake those.
            unsent(unicast, routedEpoch, UnsentMessage.Reason.SESSION_REPLACED, false, routed);
            return;
        }
        UUID deliveryId = deliveryIdOf(unicast.messageId());
        if (session.hold(deliveryId, unicast)) {
            open++;
        }
        if (!routed) {
            if (session.broadcasts.isEmpty()) {
                session.broadcasts = new HashSet<>();
            }
            session.broadcasts.add(deliveryId);
        }
        session.link.deliver(deliveryId, unicast, expiresAt == null ? Long.MAX_VALUE : expiresAt);
    }

    /** The node acknowledged a delivery: its receipt for the delivery job, and the mini-buffer keeps it. */
    void acknowledged(Session session, UUID deliveryId) {
        metrics.messagesOut.inc();
        Unicast unicast = settle(session, deliveryId);
        if (unicast == null) {
            return;
        }
        if (!session.broadcasts.remove(deliveryId)) {
            receipt(Receipt.of(unicast, Receipt.Outcome.DELIVERED, config.gatewayId(), null, System.currentTimeMillis()));
        }
        if (config.miniBuffer()) {
            if (session.recentlyAcknowledged == null) {
                session.recentlyAcknowledged = new ArrayDeque<>(2);
            }
            if (session.recentlyAcknowledged.size() == 2) {
                session.recentlyAcknowledged.removeFirst();
            }
            session.recentlyAcknowledged.addLast(unicast);
        }
    }

    /**
     * A delivery whose deadline has passed goes back unsent as EXPIRED, so its sender hears: the node said it never
     * had it, or ({@code mayHaveArrived}) nobody could ask it whether an earlier session delivered it.
     */
    void expired(Session session, UUID deliveryId, boolean mayHaveArrived) {
        Unicast unicast = settle(session, deliveryId);
        if (unicast != null && !session.broadcasts.remove(deliveryId)) {
            unsent(unicast, session.epoch, UnsentMessage.Reason.EXPIRED, mayHaveArrived, true);
        }
    }

    /**
     * The link cannot ever send a delivery to this node (a protocol limit of the node's, such as the largest packet it
     * takes): settled with a DROPPED receipt on ckc.delivered, so the delivery job lets it go and its sender hears
     * why, and counted.
     */
    void undeliverable(Session session, UUID deliveryId, String detail) {
        Unicast unicast = settle(session, deliveryId);
        if (unicast == null) {
            return;
        }
        metrics.undeliverable.inc();
        if (!session.broadcasts.remove(deliveryId)) {
            receipt(Receipt.of(unicast, Receipt.Outcome.DROPPED, config.gatewayId(), detail, System.currentTimeMillis()));
        }
    }

    /** A receipt for the delivery job, written with the others of this pass of the loop. */
    private void receipt(Receipt receipt) {
        boolean first = receipts.isEmpty();
        receipts.add(receipt);
        if (receipts.size() >= RECEIPTS_PER_RECORD) {
            writeReceipts();
        } else if (first) {
            loop.execute(this::writeReceipts);
        }
    }

    /** Writes the receipts gathered since the last write as one record (the publisher sends it until Kafka has it). */
    private void writeReceipts() {
        if (receipts.isEmpty()) {
            return;
        }
        publisher.delivered(new ReceiptBatch(config.gatewayId(), receipts));
        receipts = new ArrayList<>();
    }

    /** Takes a delivery the link answered off the session's open ones: its unicast, or null if it was not open. */
    private Unicast settle(Session session, UUID deliveryId) {
        Unicast unicast = session.release(deliveryId);
        if (unicast != null) {
            open--;
        }
        return unicast;
    }

    /**
     * The connection failed: the mini-buffer's last two acknowledged unicasts (none when it is off) go
     * to ckc.unsent, the paper's guarantee of at least once even if an acknowledgement lied; the node
     * drops the duplicates by message id.
     */
    void connectionFailed(Session session) {
        if (session.recentlyAcknowledged == null) {
            return;
        }
        for (Unicast unicast : session.recentlyAcknowledged) {
            unsent(unicast, session.epoch, UnsentMessage.Reason.CONNECTION_BROKEN, true, false); // taken in again
        }
        session.recentlyAcknowledged = null;
    }

    /**
     * The session ended: its link is closed, and every delivery it held unacknowledged goes back as
     * unsent, first those the link had sent (in the link's order), then those it never sent.
     */
    void closed(Session session, UnsentMessage.Reason reason) {
        open -= session.held().size();
        for (UUID deliveryId : session.link.close()) {
            Unicast unicast = session.release(deliveryId);
            if (unicast != null) { // sent: its acknowledgement may be what was lost
                unsent(unicast, session.epoch, reason, true, !session.broadcasts.contains(deliveryId));
            }
        }
        for (var left : session.held().entrySet()) {
            unsent(left.getValue(), session.epoch, reason, false, !session.broadcasts.contains(left.getKey()));
        }
        session.releaseAll();
        session.broadcasts.clear();
    }

    private void unsent(Unicast unicast, long epoch, UnsentMessage.Reason reason, boolean mayHaveArrived,
                        boolean routed) {
        metrics.unsent.labelValues(reason.name()).inc();
        publisher.unsent(new UnsentMessage(unicast, config.gatewayId(), epoch, reason, System.currentTimeMillis(),
                mayHaveArrived, routed));
    }

    /** Message ids are UUIDs on the wire; any other id maps to a stable name-based UUID, so MNs still dedupe. */
    static UUID deliveryIdOf(String messageId) {
        try {
            return UUID.fromString(messageId);
        } catch (IllegalArgumentException e) {
            return UUID.nameUUIDFromBytes(messageId.getBytes(StandardCharsets.UTF_8));
        }
    }
}
