package io.ckc.udfs;

import java.io.Serializable;
import java.util.Map;
import java.util.Set;

/**
 * The user-defined group selection of a group definer (paper section 7): given a mobile node and
 * its latest context, the set of groups it belongs to. Implementations are serializable because
 * Flink ships them to its task managers, and must be deterministic.
 */
public interface GroupSelection extends Serializable {

    /** The definer id: groups of different definers never collide. */
    String definerId();

    /** The groups of this mobile node given its latest context; empty for none. */
    Set<String> groupsOf(String mnId, Double latitude, Double longitude, Double battery, Map<String, String> attributes);
}
