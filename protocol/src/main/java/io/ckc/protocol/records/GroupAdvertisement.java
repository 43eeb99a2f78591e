package io.ckc.protocol.records;

import java.util.List;

/**
 * The groups one definer puts a mobile node in (paper section 7), on the compacted {@code ckc.groups}
 * keyed by {@code <definerId>/<mnId>}: written only when the set changes, so the latest record per
 * key is the node's current membership for that definer. An empty list means no group. A node's
 * groups are the union over definers; a group is named {@code <definerId>/<group>}.
 *
 * @param groups sorted, without duplicates
 */
public record GroupAdvertisement(String definerId, String mnId, List<String> groups, long timestamp) {

    public GroupAdvertisement {
        groups = groups == null ? List.of() : List.copyOf(groups);
    }

    /** The record key on {@code ckc.groups}. */
    public String key() {
        return definerId + "/" + mnId;
    }
}
