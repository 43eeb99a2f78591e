package io.ckc.protocol.kafka;

import java.util.regex.Pattern;

/**
 * The names of CKC's Kafka topics. The prefix ({@code ckc.} by default) and the application-topic
 * prefix ({@code app.}) are configurable so several installations can share one cluster.
 */
public record Topics(String prefix, String appPrefix) implements java.io.Serializable {

    public static final Topics DEFAULT = new Topics("ckc.", "app.");

    /**
     * The channel that the stack's delivery job answers itself, as the echo does ({@code --echo-channels}), beside the
     * echo job's {@code echo}: an application inside the job, one broker pass shorter.
     */
    public static final String IN_JOB_ECHO_CHANNEL = "echo-in-job";

    /** Channel names an MN may address: they become part of a Kafka topic name. */
    private static final Pattern CHANNEL = Pattern.compile("[A-Za-z0-9._-]{1,200}");
    /** Gateway ids become topic names {@code ckc.gw.<id>}: no dots, and not one of the shared gw topics. */
    private static final Pattern GATEWAY_ID = Pattern.compile("[A-Za-z0-9_-]{1,100}");
    private static final java.util.Set<String> RESERVED_GATEWAY_IDS =
            java.util.Set.of("hello", "load", "connections", "list", "stats", "rounds");

    public String app(String channel) {
        return appPrefix + channel;
    }

    /** Whether the topic is an application channel's ({@code app.<channel>}). */
    public boolean isApp(String topic) {
        return topic.startsWith(appPrefix) && topic.length() > appPrefix.length();
    }

    public String context() {
        return prefix + "context";
    }

    /** Group memberships by (definer, node): compacted, the latest record per key counts. */
    public String groups() {
        return prefix + "groups";
    }

    public String mnEvents() {
        return prefix + "mn.events";
    }

    public String toMn() {
        return prefix + "to-mn";
    }

    /** Groupcasts from applications and mobile nodes, keyed by group: the delivery job expands them. */
    public String groupcast() {
        return prefix + "groupcast";
    }

    /** Broadcasts: every gateway reads all of it (no consumer group) and delivers to all its nodes. */
    public String broadcast() {
        return prefix + "broadcast";
    }

    public String gateway(String gatewayId) {
        return prefix + "gw." + gatewayId;
    }

    public String gatewayHello() {
        return prefix + "gw.hello";
    }

    public String gatewayLoad() {
        return prefix + "gw.load";
    }

    public String gatewayConnections() {
        return prefix + "gw.connections";
    }

    public String gatewayList() {
        return prefix + "gw.list";
    }

    public String gatewayStats() {
        return prefix + "gw.stats";
    }

    public String balanceRounds() {
        return prefix + "gw.rounds";
    }

    public String poaControl() {
        return prefix + "poa.control";
    }

    public String unsent() {
        return prefix + "unsent";
    }

    /**
     * Every unicast a node acknowledged, as a DELIVERED receipt keyed by the node, from gateways to the
     * delivery job, which holds the unicast until then and passes the receipt on to its sender if asked.
     */
    public String delivered() {
        return prefix + "delivered";
    }

    /** Receipts (delivered, expired, dropped) for senders who asked, keyed by sender. */
    public String receipts() {
        return prefix + "receipts";
    }

    public String deadLetter() {
        return prefix + "dead-letter";
    }

    /**
     * Whether a group name is well formed: {@code <definerId>/<name>}, both parts non-empty, printable,
     * at most 200 characters in all.
     */
    public static boolean isValidGroup(String group) {
        if (group == null || group.length() > 200) {
            return false;
        }
        int slash = group.indexOf('/');
        return slash > 0 && slash < group.length() - 1 && group.chars().allMatch(c -> c > 0x20 && c != 0x7f);
    }

    /** Whether a gateway id is allowed: it names the gateway's own topic. */
    public static boolean isValidGatewayId(String gatewayId) {
        return gatewayId != null && GATEWAY_ID.matcher(gatewayId).matches() && !RESERVED_GATEWAY_IDS.contains(gatewayId);
    }

    /** Whether a channel name chosen by a mobile node is allowed (it maps to an {@code app.*} topic). */
    public static boolean isValidChannel(String channel) {
        return channel != null && CHANNEL.matcher(channel).matches() && !channel.startsWith(".");
    }
}
