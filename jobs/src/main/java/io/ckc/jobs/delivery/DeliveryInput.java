package io.ckc.jobs.delivery;

import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;

/**
 * What the delivery job reads, keyed by mobile node: a connect/disconnect event or a unicast.
 * Exactly one of the two is set.
 */
public record DeliveryInput(MnEvent event, Unicast unicast) {

    public static DeliveryInput of(MnEvent event) {
        return new DeliveryInput(event, null);
    }

    public static DeliveryInput of(Unicast unicast) {
        return new DeliveryInput(null, unicast);
    }

    public String mnId() {
        return event != null ? event.mnId() : unicast.recipient();
    }
}
