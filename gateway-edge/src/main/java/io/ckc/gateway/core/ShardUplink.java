package io.ckc.gateway.core;

import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.Groupcast;
import io.prometheus.metrics.core.metrics.Counter;
import org.apache.kafka.clients.producer.BufferExhaustedException;

import java.util.HashSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The uplink of one shard's sessions: an uplink's checks (payload size, the node's rate limit, the core's admission, channel
 * and group names, the channel's topic), its write to Kafka with the acknowledgement after the write,
 * refusals with their reason, and the node's context to ckc.context when {@link ContextRefresh} says
 * it is due. Confined to the shard's event loop; writes complete back on it.
 */
final class ShardUplink {

    /** Refused ids a session remembers while its writes are held: a node has no more than its window in flight. */
    private static final int MAX_REFUSED_REMEMBERED = 1024;

    private final CoreOptions config;
    private final CorePublisher publisher;
    private final GatewayMetrics metrics;
    private final UplinkAdmission admission;
    private final NodeLimits limits;
    private final ContextRefresh contextRefresh;
    private final Executor loop;

    ShardUplink(CoreOptions config, CorePublisher publisher, GatewayMetrics metrics, UplinkAdmission admission,
                NodeLimits limits, Executor loop) {
        this.config = config;
        this.publisher = publisher;
        this.metrics = metrics;
        this.admission = admission;
        this.limits = limits;
        this.contextRefresh = new ContextRefresh(config.contextRefreshMs());
        this.loop = loop;
    }

    /** Publishes the node's message or groupcast, or refuses it; the node hears which under {@code ref}. */
    void uplink(Session session, int ref, Uplink uplink) {
        if (uplink.payload().length > config.maxPayloadBytes()) {
            reject(session, ref, Refusal.PAYLOAD_TOO_LARGE,
                    "payload of " + uplink.payload().length + " bytes exceeds " + config.maxPayloadBytes());
            return;
        }
        if (session.refusedUplinks != null) {
            if (!session.refusedUplinks.contains(uplink.messageId())) {
                refuseUnwritten(session, ref, uplink.messageId(), Refusal.PUBLISH_FAILED,
                        "an earlier message could not be written: send it first");
                return;
            }
            session.refusedUplinks = null; // the node sends the refused ones again, in order: write from here on
        }
        if (!limits.uplink(session, uplink.payload().length)) {
            // Held like BUSY: refused at its source, before it takes a share of the stack-wide admission.
            refuseUnwritten(session, ref, uplink.messageId(), Refusal.RATE_LIMITED,
                    "over this node's rate limit (CKC_NODE_MESSAGES_PER_SECOND, CKC_NODE_BYTES_PER_SECOND): "
                            + "try again later");
            return;
        }
        if (!admission.admit(ThreadLocalRandom.current().nextDouble())) {
            // Held like a failed write: a node sends a BUSY message again later, and nothing may overtake it.
            refuseUnwritten(session, ref, uplink.messageId(), Refusal.BUSY, "the core is behind: try again later");
            return;
        }
        String mnId = session.mnId.toString();
        long now = System.currentTimeMillis();
        if (uplink instanceof Uplink.ToGroup groupcast) {
            if (!Topics.isValidGroup(groupcast.group())) {
                reject(session, ref, Refusal.MALFORMED, "group '" + groupcast.group() + "' is not <definerId>/<name>");
                return;
            }
            if (!session.grants.mayGroupcast(groupcast.group())) {
                reject(session, ref, Refusal.NOT_AUTHORIZED, "this node may not groupcast to '" + groupcast.group() + "'");
                return;
            }
            reportContext(session, groupcast.context(), now);
            acknowledgeOnceWritten(session, ref, groupcast.messageId(), metrics.groupcastsIn, publisher.groupcast(new Groupcast(
                    groupcast.messageId().toString(), mnId, groupcast.group(), groupcast.payload(), groupcast.ttlMs(),
                    now, false)));
            return;
        }
        Uplink.ToChannel message = (Uplink.ToChannel) uplink;
        if (!Topics.isValidChannel(message.channel())) {
            reject(session, ref, Refusal.FORBIDDEN_CHANNEL, "invalid channel name '" + message.channel() + "'");
            return;
        }
        if (!session.grants.mayPublish(message.channel())) {
            reject(session, ref, Refusal.NOT_AUTHORIZED, "this node may not publish to channel '" + message.channel() + "'");
            return;
        }
        if (!publisher.channelExists(message.channel())) {
            reject(session, ref, Refusal.UNKNOWN_CHANNEL, "no topic " + config.topics().app(message.channel()));
            return;
        }
        reportContext(session, message.context(), now);
        acknowledgeOnceWritten(session, ref, message.messageId(), metrics.messagesIn,
                publisher.appMessage(new AppMessage(message.messageId().toString(), mnId, config.gatewayId(),
                        message.channel(), message.payload(), message.context(), now, message.ttlMs(),
                        message.replyTo(), message.correlation())));
    }

    /** Refuses an uplink: counted by reason, and the node is told why. */
    void reject(Session session, int ref, Refusal refusal, String message) {
        metrics.rejected.labelValues(refusal.name()).inc();
        session.link.reject(ref, refusal, message);
    }

    /** The node's context, reported apart from any message: to ckc.context when it changed or a refresh is due. */
    void context(Session session, Context context) {
        reportContext(session, context, System.currentTimeMillis());
    }

    private void reportContext(Session session, Context context, long now) {
        if (context == null) {
            return;
        }
        long shardNow = SessionShard.nowMs();
        if (!contextRefresh.due(context, session.reportedContext, session.reportedContextMs, shardNow)) {
            metrics.contextUnchanged.inc();
            return;
        }
        session.reportedContextMs = contextRefresh.writtenAt(session.reportedContext, session.mnId, shardNow);
        session.reportedContext = context;
        publisher.context(new ContextReport(session.mnId.toString(), config.gatewayId(), now, context));
    }

    /**
     * Acknowledges the message to the node once Kafka has it, or refuses it. A write that failed at once (no broker:
     * the producer never blocks) is answered here, before the next datagram is read, so that no later message of
     * the node is written before the session knows.
     */
    private void acknowledgeOnceWritten(Session session, int ref, UUID messageId, Counter accepted,
                                        CompletionStage<Void> written) {
        CompletableFuture<Void> write = written.toCompletableFuture();
        if (write.isDone()) { // the action runs now, on this thread
            write.whenComplete((ok, error) -> written(session, ref, messageId, accepted, error));
        } else {
            written.whenComplete((ok, error) -> loop.execute(() -> written(session, ref, messageId, accepted, error)));
        }
    }

    private void written(Session session, int ref, UUID messageId, Counter accepted, Throwable error) {
        if (error == null) {
            accepted.inc();
            session.link.acknowledge(ref);
        } else if (bufferFull(error)) {
            // The producer's buffer is full (it never blocks a loop): Kafka takes less than the gateway is given, the
            // core is behind. Under twice the saturation load 318,143 messages were refused so as PUBLISH_FAILED, which
            // every node sends again a second later, where BUSY lets one that sheds late messages hand them back.
            refuseUnwritten(session, ref, messageId, Refusal.BUSY, "the core is behind: try again later");
        } else {
            refuseUnwritten(session, ref, messageId, Refusal.PUBLISH_FAILED, "core unavailable: " + error.getMessage());
        }
    }

    private static boolean bufferFull(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof BufferExhaustedException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Refuses a message that was not written, and refuses the node's later ones until it sends one of the refused
     * again (a node that gave up the first, after a BUSY, sends the later ones again: they are refused too).
     */
    private void refuseUnwritten(Session session, int ref, UUID messageId, Refusal refusal, String why) {
        if (session.refusedUplinks == null) {
            session.refusedUplinks = new HashSet<>();
        }
        if (session.refusedUplinks.size() < MAX_REFUSED_REMEMBERED) {
            session.refusedUplinks.add(messageId);
        }
        reject(session, ref, refusal, why);
    }
}
