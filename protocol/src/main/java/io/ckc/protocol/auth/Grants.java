package io.ckc.protocol.auth;

import java.util.List;

/**
 * What a node may do beyond connecting: the Kafka channels ({@code app.<channel>}) it may publish to and the groups it
 * may groupcast to, as patterns: a name, or a prefix ending in {@code *}. The default lets a node publish to every
 * {@code app.*} channel and groupcast to none.
 */
public record Grants(List<String> publish, List<String> groupcast) {

    public static final Grants DEFAULT = new Grants(List.of("app.*"), List.of());
    /** Everything: for the insecure mode, where nothing is authenticated to be judged. */
    public static final Grants ALL = new Grants(List.of("*"), List.of("*"));

    public Grants {
        publish = List.copyOf(publish);
        groupcast = List.copyOf(groupcast);
    }

    /** Whether the node may publish to {@code app.<channel>}. */
    public boolean mayPublish(String channel) {
        return matches(publish, "app." + channel);
    }

    /** Whether the node may groupcast to the group (as {@code <definer>/<group>} names it). */
    public boolean mayGroupcast(String group) {
        return matches(groupcast, group);
    }

    private static boolean matches(List<String> patterns, String name) {
        for (String pattern : patterns) {
            if (pattern.endsWith("*") ? name.startsWith(pattern.substring(0, pattern.length() - 1)) : name.equals(pattern)) {
                return true;
            }
        }
        return false;
    }
}
