package io.ckc.jobs.delivery;

/**
 * Where a mobile node is: its gateway and session epoch, and whether that session is open. A closed
 * route keeps its epoch so that a late event of an older session cannot reopen it.
 */
public record Route(String gatewayId, long epoch, boolean connected) {
}
