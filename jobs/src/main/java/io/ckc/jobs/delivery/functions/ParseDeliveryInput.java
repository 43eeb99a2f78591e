package io.ckc.jobs.delivery.functions;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ckc.jobs.delivery.DeliveryInput;
import io.ckc.jobs.io.JsonParser;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;

import java.io.IOException;

/** Parses {@code ckc.mn.events}, {@code ckc.unsent} and {@code ckc.to-mn} records; anything else is a dead letter. */
public final class ParseDeliveryInput extends JsonParser<DeliveryInput> {

    private final String eventsTopic;
    private final String unsentTopic;

    public ParseDeliveryInput(String eventsTopic, String unsentTopic) {
        super("delivery");
        this.eventsTopic = eventsTopic;
        this.unsentTopic = unsentTopic;
    }

    @Override
    protected DeliveryInput parse(ObjectMapper mapper, RawRecord record) throws IOException {
        if (eventsTopic.equals(record.topic())) {
            MnEvent event = read(mapper, record, MnEvent.class);
            require(event.type() != null && event.mnId() != null && event.gatewayId() != null,
                    "event needs type, mnId and gatewayId");
            return DeliveryInput.of(event);
        }
        if (unsentTopic.equals(record.topic())) {
            UnsentMessage unsent = read(mapper, record, UnsentMessage.class);
            require(unsent.unicast() != null && unsent.gatewayId() != null, "unsent message needs unicast and gatewayId");
            check(unsent.unicast());
            return DeliveryInput.of(unsent);
        }
        Unicast unicast = read(mapper, record, Unicast.class);
        check(unicast);
        return DeliveryInput.of(unicast);
    }

    private static void check(Unicast unicast) throws IOException {
        require(unicast.messageId() != null && unicast.recipient() != null && unicast.payload() != null,
                "unicast needs messageId, recipient and payload");
        require(unicast.sender() != null, "unicast needs a sender");
    }
}
