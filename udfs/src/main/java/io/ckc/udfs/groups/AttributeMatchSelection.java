package io.ckc.udfs.groups;

import io.ckc.udfs.GroupSelection;

import java.util.Map;
import java.util.Set;

/**
 * Worked example, an attribute match: the node is in group {@code <key>:<value>} for the value of
 * the free-form attribute named by the argument (default {@code role}), e.g. {@code role:driver}.
 */
public final class AttributeMatchSelection implements GroupSelection {

    private final String key;

    public AttributeMatchSelection() {
        this("role");
    }

    public AttributeMatchSelection(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("the attribute to match needs a name");
        }
        this.key = key.trim();
    }

    @Override
    public String definerId() {
        return "attribute-" + key;
    }

    @Override
    public Set<String> groupsOf(String mnId, Double latitude, Double longitude, Double battery,
                                Map<String, String> attributes) {
        String value = attributes == null ? null : attributes.get(key);
        return value == null || value.isBlank() ? Set.of() : Set.of(key + ":" + value);
    }
}
