package io.ckc.gateway.mqtt;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ckc.gateway.core.NodeLink;
import io.ckc.gateway.core.Refusal;
import io.ckc.gateway.core.Session;
import io.ckc.gateway.core.SessionShard;
import io.ckc.gateway.core.Uplink;
import io.ckc.protocol.records.RecentIds;
import io.ckc.protocol.kafka.Json;
import io.ckc.protocol.mqtt.MqttUserProperties;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.records.Unicast;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodes;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A device's session as MQTT carries it: its subscriptions, and what the gateway published to it at QoS 1 and it has
 * not acknowledged (deliveries, latency probes, handovers) under their packet ids. Deliveries wait here, in order,
 * while the device has no subscription to where they go or its Receive Maximum is reached. What it has not
 * acknowledged is not kept past the connection: the delivery job keeps every unacknowledged unicast and routes it
 * again when the device's next session opens; its subscriptions are, for its session expiry ({@link DeviceSessions}).
 * Confined to the session's shard event loop; writes go to the connection's channel.
 */
final class MqttLink implements NodeLink {

    private static final ObjectMapper JSON = Json.newMapper();
    private static final int MAX_PACKET_ID = 65_535;

    /** What a packet id the gateway used waits to hear a PUBACK for. */
    private sealed interface Outgoing permits Delivery, Probe, Handover {
    }

    /** @param question handed over already past its deadline: the delivery job asks whether an earlier session had it */
    private record Delivery(UUID deliveryId, Unicast unicast, long expiresAt, boolean question) implements Outgoing {
    }

    private record Probe(long timestamp) implements Outgoing {
    }

    private record Handover() implements Outgoing {
    }

    /** A QoS 1 publish from the device that the core has not acknowledged yet. */
    private record Inbound(int ref, Uplink uplink, long arrivedNanos) {

        boolean expired(long nowNanos) {
            return uplink.ttlMs() != null && nowNanos - arrivedNanos >= TimeUnit.MILLISECONDS.toNanos(uplink.ttlMs());
        }
    }

    /**
     * How long a publish the core could not take (Kafka unreachable, or the core behind) waits before it goes again:
     * a reliable-UDP node waits as long ({@code reconnectDelayMs}); spread so that the devices refused in one instant
     * do not all come back in another.
     */
    static final long RETRY_MIN_MS = 500;
    static final long RETRY_MAX_MS = 1_500;

    final Session session;
    private final SessionShard shard;
    private final Channel channel;
    private final DeviceTopics topics;
    private final int version;
    private final int receiveMaximum;
    /** The largest packet the device takes (MQTT 5 Maximum Packet Size), or {@link Integer#MAX_VALUE}. */
    private final int maximumPacketSize;
    private final DeviceSessions sessions;
    /** How long the MQTT session (its subscriptions) outlives the connection; 0: not at all. */
    private long sessionExpirySeconds;
    /** Whether the CONNECT resumed a kept session (CONNACK's Session present). */
    private final boolean sessionPresent;
    /**
     * The device's QoS 1 publishes handed to the core and not acknowledged or refused, by packet id, in the order they
     * came: at most {@link MqttConnection#MAX_INFLIGHT} (any other QoS 1 publish is settled as it arrives).
     */
    private final Map<Integer, Inbound> inbound = new LinkedHashMap<>();
    /** Those of them the core could not take, to go again in that order. */
    private final Set<Integer> held = new HashSet<>();
    private boolean retryScheduled;
    private final Set<String> filters = new HashSet<>();
    /** Published at QoS 1 and not acknowledged, by packet id, in the order sent. */
    private final Map<Integer, Outgoing> unacknowledged = new LinkedHashMap<>();
    /**
     * The message ids this device acknowledged lately. A stock MQTT client does not drop a message it gets twice (the
     * delivery job repeats one after a restore, and two run side by side in a blue/green rescale), so its session
     * does: a repeat is acknowledged for the device and not sent again.
     */
    private final RecentIds<String> acknowledgedIds = new RecentIds<>(RECENT_IDS);
    /** How many acknowledged message ids a device's session remembers. */
    static final int RECENT_IDS = 256;
    /** Deliveries not sent yet: no inbox subscription, or the device's Receive Maximum reached. */
    private final ArrayDeque<Delivery> waiting = new ArrayDeque<>();
    private int nextPacketId = 1;
    private byte closeReason = MqttReasonCodes.Disconnect.SERVER_SHUTTING_DOWN.byteValue();
    private boolean closed;

    MqttLink(Session session, SessionShard shard, Channel channel, DeviceTopics topics, int version,
             int receiveMaximum, int maximumPacketSize, DeviceSessions sessions, long sessionExpirySeconds,
             Set<String> resumedFilters) {
        this.session = session;
        this.shard = shard;
        this.channel = channel;
        this.topics = topics;
        this.version = version;
        this.receiveMaximum = receiveMaximum;
        this.maximumPacketSize = maximumPacketSize;
        this.sessions = sessions;
        this.sessionExpirySeconds = sessionExpirySeconds;
        this.sessionPresent = resumedFilters != null;
        if (resumedFilters != null) {
            filters.addAll(resumedFilters);
        }
    }

    DeviceTopics topics() {
        return topics;
    }

    boolean isV5() {
        return version == 5;
    }

    @Override
    public boolean watchesLiveness() {
        return true; // the TCP connection and the device's keep-alive: MqttConnection closes a silent one
    }

    @Override
    public void accepted(String gatewayId, int maxPayloadBytes) {
        MqttProperties properties = new MqttProperties();
        if (isV5()) {
            properties.add(new MqttProperties.IntegerProperty(MqttProperties.MAXIMUM_QOS, 1));
            properties.add(new MqttProperties.IntegerProperty(MqttProperties.RETAIN_AVAILABLE, 0));
            properties.add(new MqttProperties.IntegerProperty(MqttProperties.SHARED_SUBSCRIPTION_AVAILABLE, 0));
            properties.add(new MqttProperties.IntegerProperty(MqttProperties.TOPIC_ALIAS_MAXIMUM,
                    MqttConnection.TOPIC_ALIAS_MAXIMUM));
            properties.add(new MqttProperties.IntegerProperty(MqttProperties.RECEIVE_MAXIMUM,
                    MqttConnection.MAX_INFLIGHT));
            if (sessionExpirySeconds > DeviceSessions.MAX_EXPIRY_SECONDS) {
                sessionExpirySeconds = DeviceSessions.MAX_EXPIRY_SECONDS;
                properties.add(new MqttProperties.IntegerProperty(MqttProperties.SESSION_EXPIRY_INTERVAL,
                        (int) sessionExpirySeconds));
            }
            MqttProperties.UserProperties user = new MqttProperties.UserProperties();
            user.add(MqttUserProperties.GATEWAY, gatewayId);
            properties.add(user);
        }
        channel.writeAndFlush(MqttMessageBuilders.connAck().returnCode(MqttConnectReturnCode.CONNECTION_ACCEPTED)
                .sessionPresent(sessionPresent).properties(properties).build());
    }

    /** A QoS 1 publish is acknowledged once Kafka has it; a QoS 0 one (ref 0) has nothing to acknowledge. */
    @Override
    public void acknowledge(int ref) {
        if (ref > 0) {
            inbound.remove(ref);
            channel.writeAndFlush(MqttMessageBuilders.pubAck().packetId(ref).build());
        }
    }

    /**
     * A publish the core could not take now (Kafka unreachable, the core behind, or the device over its rate limit:
     * {@link Refusal#PUBLISH_FAILED}, {@link Refusal#BUSY}, {@link Refusal#RATE_LIMITED}) is held, unacknowledged, and goes to the core again a second later, before the device's
     * later ones (the core refuses those until it has it), for as long as the connection lasts and the message's
     * expiry allows: an MQTT client does not send a publish again once it has its PUBACK, whatever the reason code,
     * so a negative one would lose it. The device's Receive Maximum bounds what is held. Any other refusal is final:
     * MQTT 5 hears why in its PUBACK's reason code; MQTT 3.1.1 has no negative acknowledgement, so its connection
     * closes and the client sends the message again on its next one.
     */
    @Override
    public void reject(int ref, Refusal refusal, String message) {
        if (ref == 0) {
            return; // QoS 0: counted by the core, nothing to tell
        }
        if ((refusal == Refusal.PUBLISH_FAILED || refusal == Refusal.BUSY || refusal == Refusal.RATE_LIMITED)
                && inbound.containsKey(ref) && !closed) {
            hold(ref);
            return;
        }
        refuse(ref, reasonCode(refusal), message);
    }

    private void refuse(int ref, byte reasonCode, String message) {
        inbound.remove(ref);
        if (!isV5()) {
            closeWith(MqttReasonCodes.Disconnect.UNSPECIFIED_ERROR.byteValue());
            return;
        }
        MqttProperties properties = new MqttProperties();
        properties.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, message));
        channel.writeAndFlush(MqttMessageBuilders.pubAck().packetId(ref).reasonCode(reasonCode)
                .properties(properties).build());
    }

    /** Hands the device's publish to the core; one at QoS 1 ({@code ref}: its packet id) stays until acknowledged. */
    void uplink(int ref, Uplink uplink) {
        if (ref > 0) {
            inbound.put(ref, new Inbound(ref, uplink, shard.loop().ticker().nanoTime()));
        }
        shard.uplink(session, ref, uplink);
    }

    private void hold(int ref) {
        held.add(ref);
        if (!retryScheduled) {
            retryScheduled = true;
            shard.loop().schedule(this::sendHeldAgain,
                    ThreadLocalRandom.current().nextLong(RETRY_MIN_MS, RETRY_MAX_MS + 1), TimeUnit.MILLISECONDS);
        }
    }

    /** The held publishes go to the core again, in the order the device sent them; an expired one is refused. */
    private void sendHeldAgain() {
        retryScheduled = false;
        if (closed) {
            return;
        }
        long now = shard.loop().ticker().nanoTime();
        List<Inbound> again = new ArrayList<>();
        for (Inbound publish : inbound.values()) {
            if (held.contains(publish.ref)) {
                again.add(publish);
            }
        }
        held.clear();
        for (Inbound publish : again) {
            if (publish.expired(now)) {
                refuse(publish.ref, MqttReasonCodes.PubAck.IMPLEMENTATION_SPECIFIC_ERROR.byteValue(),
                        "expired before Kafka could take it");
            } else {
                shard.uplink(session, publish.ref, publish.uplink);
            }
        }
    }

    static byte reasonCode(Refusal refusal) {
        return switch (refusal) {
            case PAYLOAD_TOO_LARGE -> MqttReasonCodes.PubAck.QUOTA_EXCEEDED.byteValue();
            case FORBIDDEN_CHANNEL, UNKNOWN_CHANNEL -> MqttReasonCodes.PubAck.TOPIC_NAME_INVALID.byteValue();
            case MALFORMED -> MqttReasonCodes.PubAck.PAYLOAD_FORMAT_INVALID.byteValue();
            case PUBLISH_FAILED -> MqttReasonCodes.PubAck.IMPLEMENTATION_SPECIFIC_ERROR.byteValue();
            case BUSY, RATE_LIMITED -> MqttReasonCodes.PubAck.QUOTA_EXCEEDED.byteValue();
            case NOT_AUTHORIZED -> MqttReasonCodes.PubAck.NOT_AUTHORIZED.byteValue();
        };
    }

    @Override
    public void deliver(UUID deliveryId, Unicast unicast, long expiresAt) {
        if (closed) {
            return;
        }
        if (acknowledgedIds.seen(unicast.messageId())) {
            shard.delivered(session, deliveryId); // the device has it: its delivery job hears so again
            return;
        }
        waiting.add(new Delivery(deliveryId, unicast, expiresAt, expiresAt <= System.currentTimeMillis()));
        sendWaiting();
    }

    /**
     * The topic a device reads a delivery on: the reply topic it named, its group's or the broadcast topic, when it
     * subscribes to that, or else its inbox; null while it subscribes to none of them.
     */
    String topicOf(Unicast unicast) {
        if (unicast.replyTo() != null && topics.isOwn(unicast.replyTo()) && subscribed(unicast.replyTo())) {
            return unicast.replyTo();
        }
        if (unicast.group() != null) {
            String groupTopic = Unicast.BROADCAST.equals(unicast.group()) ? DeviceTopics.BROADCAST
                    : DeviceTopics.groupTopic(unicast.group());
            if (subscribed(groupTopic)) {
                return groupTopic;
            }
        }
        return subscribed(topics.inbox) ? topics.inbox : null;
    }

    /** Sends what waits, in order, while the device subscribes to where it goes and its Receive Maximum allows. */
    private void sendWaiting() {
        while (!waiting.isEmpty() && unacknowledged.size() < receiveMaximum) {
            Delivery delivery = waiting.peek();
            String topic = topicOf(delivery.unicast);
            if (topic == null) {
                return; // it waits for a subscription; nothing overtakes it
            }
            waiting.poll();
            long leftMs = delivery.expiresAt == Long.MAX_VALUE ? Long.MAX_VALUE
                    : delivery.expiresAt - System.currentTimeMillis();
            if (leftMs <= 0) {
                // its content never goes out past the deadline: the delivery job reports it expired; a question (it
                // was in flight on an earlier session) cannot be put to an MQTT device, so it may have arrived there
                if (delivery.question) {
                    shard.expiredUnasked(session, delivery.deliveryId);
                } else {
                    shard.expired(session, delivery.deliveryId);
                }
                continue;
            }
            MqttProperties properties = new MqttProperties();
            if (isV5()) {
                if (leftMs != Long.MAX_VALUE) {
                    // the time it has left, rounded up, as MQTT 5 requires of a server that forwards it
                    properties.add(new MqttProperties.IntegerProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL,
                            (int) Math.min(Integer.MAX_VALUE, (leftMs + 999) / 1000)));
                }
                if (delivery.unicast.correlation() != null) {
                    properties.add(new MqttProperties.BinaryProperty(MqttProperties.CORRELATION_DATA,
                            delivery.unicast.correlation()));
                }
                MqttProperties.UserProperties user = new MqttProperties.UserProperties();
                user.add(MqttUserProperties.MESSAGE_ID, delivery.deliveryId.toString());
                if (delivery.unicast.sender() != null) {
                    user.add(MqttUserProperties.SENDER, delivery.unicast.sender());
                }
                properties.add(user);
            }
            MqttPublishMessage publish = publishOf(topic, delivery.unicast.payload(), nextPacketId(), properties);
            if (maximumPacketSize != Integer.MAX_VALUE && packetSize(publish) > maximumPacketSize) {
                // MQTT 5 3.1.2.24: a packet larger than the device takes is never sent; the delivery job hears why
                publish.release();
                shard.undeliverable(session, delivery.deliveryId,
                        "larger than the device's Maximum Packet Size of " + maximumPacketSize + " bytes");
                continue;
            }
            unacknowledged.put(publish.variableHeader().packetId(), delivery);
            channel.writeAndFlush(publish);
        }
    }

    /** The size of an MQTT 5 publish on the wire, the whole packet, as Maximum Packet Size counts it. */
    static int packetSize(MqttPublishMessage publish) {
        int properties = 0;
        for (MqttProperties.MqttProperty<?> property : publish.variableHeader().properties().listAll()) {
            if (property instanceof MqttProperties.UserProperties user) {
                for (MqttProperties.StringPair pair : user.value()) {
                    properties += 1 + 2 + ByteBufUtil.utf8Bytes(pair.key) + 2 + ByteBufUtil.utf8Bytes(pair.value);
                }
            } else if (property instanceof MqttProperties.BinaryProperty binary) {
                properties += 1 + 2 + binary.value().length;
            } else if (property instanceof MqttProperties.StringProperty string) {
                properties += 1 + 2 + ByteBufUtil.utf8Bytes(string.value());
            } else {
                properties += 1 + 4; // the integer properties a delivery carries are four-byte ones
            }
        }
        int remaining = 2 + ByteBufUtil.utf8Bytes(publish.variableHeader().topicName()) + 2
                + variableByteIntegerSize(properties) + properties + publish.payload().readableBytes();
        return 1 + variableByteIntegerSize(remaining) + remaining;
    }

    private static int variableByteIntegerSize(int value) {
        return value < 128 ? 1 : value < 16_384 ? 2 : value < 2_097_152 ? 3 : 4;
    }

    @Override
    public boolean handover(GatewayEndpoints target) {
        Optional<Endpoint> endpoint = target.endpoint(Endpoint.MQTT);
        if (endpoint.isEmpty() || closed) {
            return false;
        }
        if (subscribed(topics.handover)) {
            publish(topics.handover, json(new Target(target.gatewayId(), endpoint.get().host(), endpoint.get().port())),
                    new Handover(), MqttProperties.NO_PROPERTIES);
            return true;
        }
        if (isV5()) {
            // "Use another server" with a Server Reference: the device is on its way; its session here closes with
            // the connection
            MqttProperties properties = new MqttProperties();
            properties.add(new MqttProperties.StringProperty(MqttProperties.SERVER_REFERENCE,
                    endpoint.get().host() + ":" + endpoint.get().port()));
            shard.leaving(session);
            channel.writeAndFlush(MqttMessageBuilders.disconnect()
                            .reasonCode(MqttReasonCodes.Disconnect.USE_ANOTHER_SERVER.byteValue())
                            .properties(properties).build())
                    .addListener(ChannelFutureListener.CLOSE);
            return true;
        }
        return false; // an MQTT 3.1.1 device that does not listen for handovers cannot be moved
    }

    /** A gateway as a device reads it on its handover and gateway-list topics. */
    record Target(String gatewayId, String host, int port) {
    }

    @Override
    public void gatewayList(List<GatewayEndpoints> gateways) {
        if (closed || !subscribed(topics.gateways)) {
            return;
        }
        List<Target> targets = new ArrayList<>();
        for (GatewayEndpoints gateway : gateways) {
            gateway.endpoint(Endpoint.MQTT).ifPresent(e -> targets.add(new Target(gateway.gatewayId(), e.host(),
                    e.port())));
        }
        channel.writeAndFlush(MqttMessageBuilders.publish().topicName(topics.gateways).qos(MqttQoS.AT_MOST_ONCE)
                .payload(Unpooled.wrappedBuffer(json(targets))).build());
    }

    /** The gateway's latency probe: a QoS 1 publish to the device's ping topic, timed to its PUBACK. */
    @Override
    public void ping(long timestamp) {
        if (!closed && subscribed(topics.ping)) {
            publish(topics.ping, Long.toString(timestamp).getBytes(StandardCharsets.US_ASCII), new Probe(timestamp),
                    MqttProperties.NO_PROPERTIES);
        }
    }

    @Override
    public List<UUID> close() {
        List<UUID> open = new ArrayList<>();
        for (Outgoing outgoing : unacknowledged.values()) {
            if (outgoing instanceof Delivery delivery) {
                open.add(delivery.deliveryId);
            }
        }
        for (Delivery delivery : waiting) {
            open.add(delivery.deliveryId);
        }
        unacknowledged.clear();
        waiting.clear();
        sessions.keep(topics.clientId, filters, sessionExpirySeconds, System.currentTimeMillis());
        if (!closed) {
            closeWith(closeReason);
        }
        return open;
    }

    /** Whether the device may have one more QoS 1 publish unacknowledged: false past CONNACK's Receive Maximum. */
    boolean inboundPublish() {
        return inbound.size() < MqttConnection.MAX_INFLIGHT;
    }

    /** The device's DISCONNECT changed how long its session outlives the connection. */
    void sessionExpiry(long seconds) {
        sessionExpirySeconds = seconds;
    }

    /** The next close tells the device another connection took its session over. */
    void takenOver() {
        closeReason = MqttReasonCodes.Disconnect.SESSION_TAKEN_OVER.byteValue();
    }

    // ---------------------------------------------------------------------------------------------
    // from the device, on the shard's loop (MqttConnection hands them over)

    void subscribed(List<String> granted) {
        filters.addAll(granted);
        sendWaiting();
    }

    void unsubscribed(List<String> gone) {
        gone.forEach(filters::remove);
    }

    void pubAck(int packetId) {
        Outgoing outgoing = unacknowledged.remove(packetId);
        if (outgoing instanceof Delivery delivery) {
            acknowledgedIds.firstTime(delivery.unicast.messageId());
            shard.delivered(session, delivery.deliveryId);
            sendWaiting();
        } else if (outgoing instanceof Probe probe) {
            shard.pong(session, probe.timestamp);
        } else if (outgoing instanceof Handover) {
            shard.leaving(session);
        }
    }

    // ---------------------------------------------------------------------------------------------

    private boolean subscribed(String topic) {
        for (String filter : filters) {
            if (DeviceTopics.matches(filter, topic)) {
                return true;
            }
        }
        return false;
    }

    private void publish(String topic, byte[] payload, Outgoing outgoing, MqttProperties properties) {
        MqttPublishMessage publish = publishOf(topic, payload, nextPacketId(), properties);
        unacknowledged.put(publish.variableHeader().packetId(), outgoing);
        channel.writeAndFlush(publish);
    }

    private static MqttPublishMessage publishOf(String topic, byte[] payload, int packetId, MqttProperties properties) {
        return MqttMessageBuilders.publish().topicName(topic).qos(MqttQoS.AT_LEAST_ONCE).messageId(packetId)
                .properties(properties).payload(Unpooled.wrappedBuffer(payload)).build();
    }

    private int nextPacketId() {
        do {
            int id = nextPacketId;
            nextPacketId = id == MAX_PACKET_ID ? 1 : id + 1;
            if (!unacknowledged.containsKey(id)) {
                return id;
            }
        } while (true); // at most receiveMaximum (< 65,535) are in use
    }

    private void closeWith(byte reason) {
        closed = true;
        if (isV5()) {
            channel.writeAndFlush(MqttMessageBuilders.disconnect().reasonCode(reason).build())
                    .addListener(ChannelFutureListener.CLOSE);
        } else {
            channel.close();
        }
    }

    private static byte[] json(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value, e);
        }
    }
}
