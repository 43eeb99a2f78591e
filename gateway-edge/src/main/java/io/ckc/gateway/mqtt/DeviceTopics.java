package io.ckc.gateway.mqtt;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The MQTT topics a device uses with CKC, in one place (docs/mqtt.md lists them). It publishes to {@code app/<channel>}
 * (Kafka {@code app.<channel>}), to {@code ckc/groups/<definerId>/<name>} (a groupcast) and to
 * {@code ckc/<client-id>/context} (its context). It subscribes to {@code ckc/<client-id>/inbox} for its unicasts,
 * {@code ckc/<client-id>/gateways} for the gateway list, {@code ckc/<client-id>/handover} for handover commands,
 * {@code ckc/<client-id>/ping} for the gateway's latency probes ({@code ckc/<client-id>/#} takes them all), any other
 * topic of its own it names as a Response Topic, and {@code ckc/groups/...} and {@code ckc/broadcast} to read
 * groupcasts and broadcasts apart from its inbox. The client id names the node.
 */
public final class DeviceTopics {

    static final String APP_PREFIX = "app/";
    static final String GROUP_PREFIX = "ckc/groups/";
    static final String BROADCAST = "ckc/broadcast";

    final String clientId;
    final String inbox;
    final String gateways;
    final String handover;
    final String ping;
    final String context;
    private final String own;

    DeviceTopics(String clientId) {
        this.clientId = clientId;
        this.own = "ckc/" + clientId + "/";
        this.inbox = own + "inbox";
        this.gateways = own + "gateways";
        this.handover = own + "handover";
        this.ping = own + "ping";
        this.context = own + "context";
    }

    /**
     * The node id of a client id: the UUID it spells, or else a name-based UUID of it, so any client id works and the
     * same one always names the same node.
     */
    public static UUID nodeId(String clientId) {
        try {
            UUID parsed = UUID.fromString(clientId);
            if (parsed.toString().equalsIgnoreCase(clientId)) {
                return parsed;
            }
        } catch (IllegalArgumentException notAUuid) {
            // a name: below
        }
        return UUID.nameUUIDFromBytes(("ckc-mqtt:" + clientId).getBytes(StandardCharsets.UTF_8));
    }

    /** The channel a publish to {@code topic} goes to, or null when the topic is not {@code app/<channel>}. */
    static String channel(String topic) {
        if (!topic.startsWith(APP_PREFIX)) {
            return null;
        }
        String channel = topic.substring(APP_PREFIX.length());
        return channel.isEmpty() || channel.indexOf('/') >= 0 ? null : channel;
    }

    /** The group ({@code <definerId>/<name>}) a publish to {@code topic} goes to, or null when it names none. */
    static String group(String topic) {
        return topic.startsWith(GROUP_PREFIX) ? topic.substring(GROUP_PREFIX.length()) : null;
    }

    /** The topic a device reads a group's messages on. */
    static String groupTopic(String group) {
        return GROUP_PREFIX + group;
    }

    /** Whether the topic is one of the device's own, {@code ckc/<client-id>/...}. */
    boolean isOwn(String topic) {
        return topic.startsWith(own) && topic.length() > own.length();
    }

    /**
     * Whether a device may subscribe to this filter: its own topics, groups' topics and the broadcast topic, and no
     * filter that would take another device's topics.
     */
    boolean maySubscribe(String filter) {
        return isOwn(filter) || (filter.startsWith(GROUP_PREFIX) && filter.length() > GROUP_PREFIX.length())
                || filter.equals(BROADCAST);
    }

    /** MQTT topic matching (section 4.7): {@code +} matches one level, a trailing {@code #} any number, even none. */
    static boolean matches(String filter, String topic) {
        int f = 0;
        int t = 0;
        while (f < filter.length()) {
            char c = filter.charAt(f);
            if (c == '#') {
                return f + 1 == filter.length() && (f == 0 || filter.charAt(f - 1) == '/');
            }
            if (c == '+') {
                int end = topic.indexOf('/', t);
                t = end < 0 ? topic.length() : end;
                f++;
                continue;
            }
            if (t >= topic.length()) {
                // "a/#" also matches "a": the filter's remainder must be exactly "/#"
                return filter.startsWith("/#", f) && f + 2 == filter.length();
            }
            if (topic.charAt(t) != c) {
                return false;
            }
            f++;
            t++;
        }
        return t == topic.length();
    }
}
