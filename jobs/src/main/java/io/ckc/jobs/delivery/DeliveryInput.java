package io.ckc.jobs.delivery;

import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;

/**
 * What the delivery job reads: for the routing keyed by mobile node, a connect/disconnect event, a
 * unicast, a unicast a gateway could not send, or a node's acknowledgement of a delivery (a
 * DELIVERED receipt from {@code ckc.delivered}); for the group index, a group advertisement or a
 * groupcast (the parser hands those two to side outputs); for an application inside the job, a node's message on
 * one of its channels (a side output too). Exactly one field is set.
 */
public record DeliveryInput(MnEvent event, Unicast unicast, UnsentMessage unsent, Receipt delivered,
                            GroupAdvertisement advertisement, Groupcast groupcast, AppMessage appMessage) {

    public static DeliveryInput of(MnEvent event) {
        return new DeliveryInput(event, null, null, null, null, null, null);
    }

    public static DeliveryInput of(Unicast unicast) {
        return new DeliveryInput(null, unicast, null, null, null, null, null);
    }

    public static DeliveryInput of(UnsentMessage unsent) {
        return new DeliveryInput(null, null, unsent, null, null, null, null);
    }

    public static DeliveryInput delivered(Receipt delivered) {
        return new DeliveryInput(null, null, null, delivered, null, null, null);
    }

    public static DeliveryInput of(GroupAdvertisement advertisement) {
        return new DeliveryInput(null, null, null, null, advertisement, null, null);
    }

    public static DeliveryInput of(Groupcast groupcast) {
        return new DeliveryInput(null, null, null, null, null, groupcast, null);
    }

    public static DeliveryInput of(AppMessage appMessage) {
        return new DeliveryInput(null, null, null, null, null, null, appMessage);
    }

    /** The node this input is routed by; null for a groupcast, which is keyed by group. */
    public String mnId() {
        if (event != null) {
            return event.mnId();
        }
        if (unicast != null) {
            return unicast.recipient();
        }
        if (unsent != null) {
            return unsent.unicast().recipient();
        }
        if (delivered != null) {
            return delivered.recipient();
        }
        if (appMessage != null) {
            return appMessage.mnId();
        }
        return advertisement != null ? advertisement.mnId() : null;
    }
}
