package io.ckc.protocol.records;

import java.util.List;

/**
 * The groups one definer puts a mobile node in (paper section 7), on the compacted {@code ckc.groups}
 * keyed by {@code <definerId>/<mnId>}: written only when the set changes, so the latest record per
 * key is the node's current membership for that definer. An empty list means no group. A node's
 * groups are the union over definers; a group is named {@code <definerId>/<group>}.
 *
 * <p>A rule over a time window (such as "reported from this zone in the last 5 minutes") cannot
 * say when a node that went quiet leaves; it gives its memberships a lease instead: past
 * {@code expiresAt} without a newer advertisement, the node is in none of this definer's groups.
 *
 * @param groups    sorted, without duplicates
 * @param expiresAt when these memberships lapse unless renewed (epoch ms); null: until changed
 */
public record GroupAdvertisement(String definerId, String mnId, List<String> groups, long timestamp, Long expiresAt) {

    public GroupAdvertisement {
        groups = groups == null ? List.of() : List.copyOf(groups);
    }

    /** Memberships that hold until the definer says otherwise. */
    public GroupAdvertisement(String definerId, String mnId, List<String> groups, long timestamp) {
        this(definerId, mnId, groups, timestamp, null);
    }

    /** The full names of the groups, {@code <definerId>/<group>}, as groupcasts address them. */
    public List<String> qualifiedGroups() {
        return groups.stream().map(g -> definerId + "/" + g).toList();
    }

    /** The advertisement a deleted record (a tombstone for this key) stands for: no group. */
    public static GroupAdvertisement ofKey(String key, long timestamp) {
        int slash = key == null ? -1 : key.lastIndexOf('/');
        if (slash <= 0 || slash == key.length() - 1) {
            throw new IllegalArgumentException("a ckc.groups key is <definerId>/<mnId>, got '" + key + "'");
        }
        return new GroupAdvertisement(key.substring(0, slash), key.substring(slash + 1), List.of(), timestamp);
    }

    /** The record key on {@code ckc.groups}. */
    public String key() {
        return definerId + "/" + mnId;
    }
}
