package io.ckc.jobs.delivery;

/**
 * A mobile node joined or left one group ({@code <definerId>/<name>}): what the membership index,
 * keyed by group, learns from the advertisements keyed by (definer, node).
 */
public record MembershipChange(String group, String mnId, boolean joined) {
}
