package io.ckc.jobs.delivery.functions;

import io.ckc.jobs.delivery.DeliveryInput;
import io.ckc.jobs.io.RecordParser;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.ReceiptBatch;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses {@code ckc.mn.events}, {@code ckc.unsent}, {@code ckc.delivered} and {@code ckc.to-mn} records for the routing,
 * and {@code ckc.groups} (a deleted key counts as "no group") and {@code ckc.groupcast} records,
 * which go to the {@link #ADVERTISEMENTS} and {@link #GROUPCASTS} side outputs, and nodes' messages on
 * {@code app.<channel>} for an application inside the job, to {@link #APP_MESSAGES}; anything else is a dead letter.
 */
public final class ParseDeliveryInput extends RecordParser<DeliveryInput> {

    public static final OutputTag<GroupAdvertisement> ADVERTISEMENTS = new OutputTag<>("group-advertisements") {
    };
    public static final OutputTag<Groupcast> GROUPCASTS = new OutputTag<>("groupcasts") {
    };
    public static final OutputTag<AppMessage> APP_MESSAGES = new OutputTag<>("app-messages") {
    };

    private final String eventsTopic;
    private final String unsentTopic;
    private final String deliveredTopic;
    private final String groupsTopic;
    private final String groupcastTopic;
    private final Topics topics;

    public ParseDeliveryInput(Topics topics) {
        super("delivery");
        this.eventsTopic = topics.mnEvents();
        this.unsentTopic = topics.unsent();
        this.deliveredTopic = topics.delivered();
        this.groupsTopic = topics.groups();
        this.groupcastTopic = topics.groupcast();
        this.topics = topics;
    }

    @Override
    protected DeliveryInput parse(RecordFormat format, RawRecord record) throws IOException {
        if (eventsTopic.equals(record.topic())) {
            MnEvent event = read(format, record, MnEvent.class);
            require(event.type() != null && event.mnId() != null && event.gatewayId() != null,
                    "event needs type, mnId and gatewayId");
            return DeliveryInput.of(event);
        }
        if (unsentTopic.equals(record.topic())) {
            UnsentMessage unsent = read(format, record, UnsentMessage.class);
            require(unsent.unicast() != null && unsent.gatewayId() != null, "unsent message needs unicast and gatewayId");
            check(unsent.unicast());
            return DeliveryInput.of(unsent);
        }
        if (deliveredTopic.equals(record.topic())) {
            List<DeliveryInput> receipts = receipts(format, record);
            require(receipts.size() == 1, "a batch of " + receipts.size() + " receipts where one was expected");
            return receipts.get(0);
        }
        if (groupsTopic.equals(record.topic())) {
            return DeliveryInput.of(advertisement(format, record));
        }
        if (groupcastTopic.equals(record.topic())) {
            Groupcast groupcast = read(format, record, Groupcast.class);
            require(groupcast.messageId() != null && groupcast.sender() != null && groupcast.payload() != null,
                    "groupcast needs messageId, sender and payload");
            require(Topics.isValidGroup(groupcast.group()), "groupcast group '" + groupcast.group()
                    + "' is not <definerId>/<name>");
            return DeliveryInput.of(groupcast);
        }
        if (topics.isApp(record.topic()) && !topics.toMn().equals(record.topic())) {
            return DeliveryInput.of(checked(read(format, record, AppMessage.class)));
        }
        Unicast unicast = read(format, record, Unicast.class);
        check(unicast);
        return DeliveryInput.of(unicast);
    }

    /** A gateway's batch of receipts ({@link ReceiptBatch}) becomes one input per receipt, before the keyed step. */
    @Override
    protected void parseAndEmit(RecordFormat format, RawRecord record, Context ctx, Collector<DeliveryInput> out)
            throws IOException {
        if (!deliveredTopic.equals(record.topic())) {
            super.parseAndEmit(format, record, ctx, out);
            return;
        }
        for (DeliveryInput receipt : receipts(format, record)) {
            emit(receipt, ctx, out);
        }
    }

    /**
     * The receipts of a {@code ckc.delivered} record: a gateway's batch, or a single receipt (as gateways wrote before
     * they batched, binary or JSON); all of them acceptable, or the record is a dead letter.
     */
    private static List<DeliveryInput> receipts(RecordFormat format, RawRecord record) throws IOException {
        ReceiptBatch batch = read(format, record, ReceiptBatch.class);
        List<Receipt> receipts = batch.receipts() != null ? batch.receipts() : List.of(read(format, record, Receipt.class));
        List<DeliveryInput> inputs = new ArrayList<>(receipts.size());
        for (Receipt delivered : receipts) {
            require(delivered != null && delivered.messageId() != null && delivered.recipient() != null
                    && (delivered.outcome() == Receipt.Outcome.DELIVERED || delivered.outcome() == Receipt.Outcome.DROPPED),
                    "an acknowledgement needs messageId, recipient and outcome DELIVERED (or DROPPED)");
            inputs.add(DeliveryInput.delivered(delivered));
        }
        return inputs;
    }

    @Override
    protected void emit(DeliveryInput parsed, Context ctx, Collector<DeliveryInput> out) {
        if (parsed.advertisement() != null) {
            ctx.output(ADVERTISEMENTS, parsed.advertisement());
        } else if (parsed.groupcast() != null) {
            ctx.output(GROUPCASTS, parsed.groupcast());
        } else if (parsed.appMessage() != null) {
            ctx.output(APP_MESSAGES, parsed.appMessage());
        } else {
            out.collect(parsed);
        }
    }

    private static GroupAdvertisement advertisement(RecordFormat format, RawRecord record) throws IOException {
        if (record.value() == null) { // compaction's delete: the key's node is in none of the definer's groups
            require(record.key() != null, "a deleted ckc.groups record needs its key");
            try {
                return GroupAdvertisement.ofKey(new String(record.key(), StandardCharsets.UTF_8), Long.MAX_VALUE);
            } catch (IllegalArgumentException e) {
                throw new IOException(e.getMessage());
            }
        }
        GroupAdvertisement advertisement = read(format, record, GroupAdvertisement.class);
        require(advertisement.definerId() != null && !advertisement.definerId().isBlank()
                && advertisement.mnId() != null && !advertisement.mnId().isBlank(),
                "a group advertisement needs definerId and mnId");
        return advertisement;
    }

    private static void check(Unicast unicast) throws IOException {
        require(unicast.messageId() != null && unicast.recipient() != null && unicast.payload() != null,
                "unicast needs messageId, recipient and payload");
        require(unicast.sender() != null, "unicast needs a sender");
    }
}
