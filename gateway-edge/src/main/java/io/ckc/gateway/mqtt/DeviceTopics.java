package io.ckc.gateway.mqtt;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The MQTT topics a device uses with CKC, in one place (docs/mqtt.md lists them): it publishes to
 * {@code app/<channel>} (Kafka {@code app.<channel>}), and subscribes to {@code ckc/<client-id>/inbox} for its
 * unicasts, {@code ckc/<client-id>/gateways} for the gateway list, {@code ckc/<client-id>/handover} for handover
 * commands and {@code ckc/<client-id>/ping} for the gateway's latency probes ({@code ckc/<client-id>/#} takes them
 * all). The client id names the node.
 */
final class DeviceTopics {

    static final String APP_PREFIX = "app/";

    final String clientId;
    final String inbox;
    final String gateways;
    final String handover;
    final String ping;
    private final String own;

    DeviceTopics(String clientId) {
        this.clientId = clientId;
        this.own = "ckc/" + clientId + "/";
        this.inbox = own + "inbox";
        this.gateways = own + "gateways";
        this.handover = own + "handover";
        this.ping = own + "ping";
    }

    /**
     * The node id of a client id: the UUID it spells, or else a name-based UUID of it, so any client id works and the
     * same one always names the same node.
     */
    static UUID nodeId(String clientId) {
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

    /** Whether a device may subscribe to this filter: one that names its own topics, and no one else's. */
    boolean maySubscribe(String filter) {
        return filter.startsWith(own) && (matches(filter, inbox) || matches(filter, gateways)
                || matches(filter, handover) || matches(filter, ping));
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
