package io.ckc.protocol.records;

import java.util.List;

/**
 * The active gateways sorted by score, best (lightest) first, on the compacted {@code ckc.gw.list}
 * topic; written by the PoA manager after each liveness check and forwarded by gateways to their
 * mobile nodes.
 */
public record GatewayList(long version, long timestamp, String ranking, List<Entry> gateways) {

    public GatewayList {
        gateways = gateways == null ? List.of() : List.copyOf(gateways);
    }

    /** The key of the one record of the compacted topic. */
    public static final String KEY = "gateways";

    /** One active gateway: where to reach it, one endpoint per protocol, and how it ranks. */
    public record Entry(String gatewayId, List<Endpoint> endpoints, double score, int connectedMns) {

        public Entry {
            endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
        }

        public GatewayEndpoints reach() {
            return new GatewayEndpoints(gatewayId, endpoints);
        }
    }
}
