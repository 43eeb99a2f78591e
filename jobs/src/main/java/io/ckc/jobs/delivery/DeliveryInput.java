package io.ckc.jobs.delivery;

import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;

/**
 * What the delivery job reads, keyed by mobile node: a connect/disconnect event, a unicast, or a
 * unicast a gateway could not send. Exactly one of the three is set.
 */
public record DeliveryInput(MnEvent event, Unicast unicast, UnsentMessage unsent) {

    public static DeliveryInput of(MnEvent event) {
        return new DeliveryInput(event, null, null);
    }

    public static DeliveryInput of(Unicast unicast) {
        return new DeliveryInput(null, unicast, null);
    }

    public static DeliveryInput of(UnsentMessage unsent) {
        return new DeliveryInput(null, null, unsent);
    }

    public String mnId() {
        if (event != null) {
            return event.mnId();
        }
        return unicast != null ? unicast.recipient() : unsent.unicast().recipient();
    }
}
