package io.ckc.jobs.delivery;

/**
 * Where a mobile node is: its gateway and session epoch, and whether that session is open. A closed
 * route keeps its epoch so that a late event of an older session cannot reopen it.
 *
 * @param openedAt when the session opened, on its gateway's clock (its Connected event's timestamp): a loss of
 *                 the gateway declared with an earlier last sign of life is not this session's
 */
public record Route(String gatewayId, long epoch, boolean connected, long openedAt) {

    public Route closed() {
        return new Route(gatewayId, epoch, false, openedAt);
    }
}
