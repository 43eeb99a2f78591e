package io.ckc.jobs.delivery;

/**
 * Where a mobile node is: its gateway and session epoch, and whether that session is open. A closed
 * route keeps its epoch so that a late event of an older session cannot reopen it.
 *
 * @param openedAt when the session opened, on its gateway's clock (its Connected event's timestamp): a loss of
 *                 the gateway declared with an earlier last sign of life is not this session's
 * @param declaredLost the PoA manager declared the session's gateway lost: messages still go there (the
 *                     declaration may be wrong: a gateway cut off from Kafka serves its nodes), but unless the
 *                     gateway shows it lives (a DELIVERED receipt) or the node connects again, the route is forgotten
 *                     after the retention
 */
public record Route(String gatewayId, long epoch, boolean connected, long openedAt, boolean declaredLost) {

    public Route(String gatewayId, long epoch, boolean connected, long openedAt) {
        this(gatewayId, epoch, connected, openedAt, false);
    }

    public Route closed() {
        return new Route(gatewayId, epoch, false, openedAt, declaredLost);
    }

    public Route lost(boolean lost) {
        return new Route(gatewayId, epoch, connected, openedAt, lost);
    }
}
