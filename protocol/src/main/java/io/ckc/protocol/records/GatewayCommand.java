package io.ckc.protocol.records;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** A record on a gateway's own topic {@code ckc.gw.<gatewayId>}, keyed by MN id. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({@JsonSubTypes.Type(value = GatewayCommand.Deliver.class, name = "deliver")})
public sealed interface GatewayCommand {

    /** Deliver a unicast to one of the gateway's mobile nodes. */
    record Deliver(Unicast unicast) implements GatewayCommand {
    }
}
