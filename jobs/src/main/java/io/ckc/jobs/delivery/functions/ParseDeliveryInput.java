package io.ckc.jobs.delivery.functions;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ckc.jobs.delivery.DeliveryInput;
import io.ckc.jobs.io.JsonParser;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;

import java.io.IOException;

/** Parses {@code ckc.mn.events} and {@code ckc.to-mn} records; anything else is a dead letter. */
public final class ParseDeliveryInput extends JsonParser<DeliveryInput> {

    private final String eventsTopic;

    public ParseDeliveryInput(String eventsTopic) {
        super("delivery");
        this.eventsTopic = eventsTopic;
    }

    @Override
    protected DeliveryInput parse(ObjectMapper mapper, RawRecord record) throws IOException {
        if (eventsTopic.equals(record.topic())) {
            MnEvent event = read(mapper, record, MnEvent.class);
            require(event.type() != null && event.mnId() != null && event.gatewayId() != null,
                    "event needs type, mnId and gatewayId");
            return DeliveryInput.of(event);
        }
        Unicast unicast = read(mapper, record, Unicast.class);
        require(unicast.messageId() != null && unicast.recipient() != null && unicast.payload() != null,
                "unicast needs messageId, recipient and payload");
        require(unicast.sender() != null, "unicast needs a sender");
        return DeliveryInput.of(unicast);
    }
}
