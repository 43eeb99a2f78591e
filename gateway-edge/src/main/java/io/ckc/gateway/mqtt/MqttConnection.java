package io.ckc.gateway.mqtt;

import java.util.Optional;
import io.ckc.protocol.auth.Identity;
import io.ckc.gateway.core.NodeAuthenticator;
import io.ckc.protocol.auth.Grants;
import com.fasterxml.jackson.databind.ObjectReader;
import io.ckc.gateway.core.ConnectAnswer;
import io.ckc.gateway.core.GatewayCore;
import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.gateway.core.Refusal;
import io.ckc.gateway.core.Session;
import io.ckc.gateway.core.SessionShard;
import io.ckc.gateway.core.Uplink;
import io.ckc.protocol.kafka.Json;
import io.ckc.protocol.mqtt.MqttUserProperties;
import io.ckc.protocol.records.Context;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttIdentifierRejectedException;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttReasonCodes;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubAckPayload;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttTopicSubscription;
import io.netty.handler.codec.mqtt.MqttUnacceptableProtocolVersionException;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * One device's TCP connection: decodes what it sends into calls on the core, on the shard its node id hashes to
 * ({@link SessionShard#execute}, so everything of one session runs on that shard's loop, in the order the device sent
 * it). The codec only encodes and decodes; the session, its deliveries and their expiry are the core's. A malformed
 * or oversized packet closes this connection (with an MQTT 5 reason code) and is counted; no other is disturbed.
 */
final class MqttConnection extends ChannelInboundHandlerAdapter {

    /** In-flight QoS 1 publishes to one device at most, whatever Receive Maximum it asks for. */
    static final int MAX_INFLIGHT = 1_024;
    /** The topic aliases a device may set (CONNACK's Topic Alias Maximum). */
    static final int TOPIC_ALIAS_MAXIMUM = 32;
    private static final ObjectReader CONTEXT_READER = Json.newMapper().readerFor(Context.class);

    private final GatewayCore core;
    private final GatewayMetrics metrics;
    private final DeviceSessions sessions;
    /** Null until CONNECT: the shard of the device's node id. */
    private SessionShard shard;
    /** The session's link: set and read on the shard's loop only. */
    private MqttLink link;
    private int version;
    /** The Will the device left at CONNECT, until a DISCONNECT without it; read on the connection's loop. */
    private Uplink.ToChannel will;
    /** The topics a device set aliases for, by alias; null until it sets one. On the connection's loop. */
    private String[] topicAliases;

    MqttConnection(GatewayCore core, GatewayMetrics metrics, DeviceSessions sessions) {
        this.core = core;
        this.metrics = metrics;
        this.sessions = sessions;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (!(msg instanceof MqttMessage packet)) {
                return;
            }
            if (packet.decoderResult().isFailure()) {
                malformed(ctx, packet.decoderResult().cause());
                return;
            }
            if (packet instanceof MqttConnectMessage connect) {
                connect(ctx, connect);
                return;
            }
            if (shard == null) {
                protocolError(ctx);
                return;
            }
            switch (packet.fixedHeader().messageType()) {
                case PUBLISH -> publish(ctx, (MqttPublishMessage) packet);
                case PUBACK -> {
                    // MQTT 5's PUBACK header (MqttPubReplyMessageVariableHeader) is one of these too
                    int packetId = ((MqttMessageIdVariableHeader) packet.variableHeader()).messageId();
                    onShard(() -> link.pubAck(packetId));
                }
                case SUBSCRIBE -> subscribe(ctx, (MqttSubscribeMessage) packet);
                case UNSUBSCRIBE -> unsubscribe(ctx, (MqttUnsubscribeMessage) packet);
                case PINGREQ -> ctx.writeAndFlush(MqttMessage.PINGRESP);
                case DISCONNECT -> {
                    // MQTT 5's 0x04 "Disconnect with Will Message" asks for the Will; any other DISCONNECT drops it
                    byte withWill = MqttReasonCodes.Disconnect.DISCONNECT_WITH_WILL_MESSAGE.byteValue();
                    if (!(packet.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader reason
                            && reason.reasonCode() == withWill)) {
                        will = null;
                    }
                    Uplink.ToChannel lastWill = will;
                    Long expiry = packet.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader header
                            && header.properties().getProperty(MqttProperties.SESSION_EXPIRY_INTERVAL)
                            instanceof MqttProperties.IntegerProperty changed
                            ? Integer.toUnsignedLong(changed.value()) : null;
                    onShard(() -> {
                        if (expiry != null) {
                            link.sessionExpiry(expiry);
                        }
                        publishWill(lastWill);
                        shard.disconnect(link.session);
                    });
                    will = null;
                    ctx.close();
                }
                default -> protocolError(ctx);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    /** The certificate the device presented over TLS, which TLS verified; empty without one. */
    private static Optional<X509Certificate> clientCertificate(ChannelHandlerContext ctx) {
        SslHandler tls = ctx.pipeline().get(SslHandler.class);
        if (tls == null) {
            return Optional.empty();
        }
        try {
            java.security.cert.Certificate[] chain = tls.engine().getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate device ? Optional.of(device)
                    : Optional.empty();
        } catch (SSLPeerUnverifiedException none) {
            return Optional.empty();
        }
    }

    private void connect(ChannelHandlerContext ctx, MqttConnectMessage connect) {
        if (shard != null) {
            protocolError(ctx);
            return;
        }
        version = connect.variableHeader().version();
        String clientId = connect.payload().clientIdentifier();
        if (clientId == null || clientId.isEmpty() || clientId.indexOf('/') >= 0 || clientId.indexOf('+') >= 0
                || clientId.indexOf('#') >= 0) {
            refuseConnect(ctx, version == 5 ? MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID
                    : MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED);
            return;
        }
        Grants grants = Grants.ALL; // the insecure mode: no credentials to judge by
        if (core.authenticator().isPresent()) {
            NodeAuthenticator authenticator = core.authenticator().get();
            Optional<X509Certificate> certificate = clientCertificate(ctx);
            Optional<Identity> who = certificate.isPresent() ? certificate.flatMap(authenticator::certificate)
                    : authenticator.password(connect.payload().userName(), connect.payload().passwordInBytes());
            if (who.isEmpty() || !who.get().node().equals(DeviceTopics.nodeId(clientId))) {
                metrics.connectsRefused.labelValues(ConnectAnswer.BAD_CREDENTIALS.label()).inc();
                refuseConnect(ctx, version == 5 ? MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD
                        : MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD);
                return;
            }
            grants = authenticator.grants(who.get());
        }
        Grants granted = grants;
        if (ctx.pipeline().get("connect-timeout") != null) {
            ctx.pipeline().remove("connect-timeout");
        }
        try {
            will = will(connect);
        } catch (IllegalArgumentException notAnAppTopic) {
            refuseConnect(ctx, version == 5 ? MqttConnectReturnCode.CONNECTION_REFUSED_TOPIC_NAME_INVALID
                    : MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED);
            return;
        }
        int keepAlive = connect.variableHeader().keepAliveTimeSeconds();
        if (keepAlive > 0) {
            // MQTT 3.1.2.10: a server closes a connection silent for one and a half keep-alive periods
            ctx.pipeline().addFirst("keep-alive", new IdleStateHandler(keepAlive * 1_500L, 0, 0, TimeUnit.MILLISECONDS));
        }
        int receiveMaximum = MAX_INFLIGHT;
        if (version == 5 && connect.variableHeader().properties()
                .getProperty(MqttProperties.RECEIVE_MAXIMUM) instanceof MqttProperties.IntegerProperty asked) {
            receiveMaximum = Math.max(1, Math.min(MAX_INFLIGHT, asked.value()));
        }
        int maximumPacketSize = version == 5 && connect.variableHeader().properties()
                .getProperty(MqttProperties.MAXIMUM_PACKET_SIZE) instanceof MqttProperties.IntegerProperty largest
                ? largest.value() : Integer.MAX_VALUE;
        boolean cleanStart = connect.variableHeader().isCleanSession();
        long expirySeconds = version == 5
                ? connect.variableHeader().properties().getProperty(MqttProperties.SESSION_EXPIRY_INTERVAL)
                        instanceof MqttProperties.IntegerProperty expiry ? Integer.toUnsignedLong(expiry.value()) : 0
                : cleanStart ? 0 : DeviceSessions.MAX_EXPIRY_SECONDS; // 3.1.1: Clean Session 0 keeps it
        DeviceTopics topics = new DeviceTopics(clientId);
        UUID mnId = DeviceTopics.nodeId(clientId);
        SessionShard target = core.shardOf(mnId);
        shard = target;
        int inflight = receiveMaximum;
        target.execute(() -> {
            if (!ctx.channel().isActive()) {
                return;
            }
            ConnectAnswer answer = target.admit(mnId, ctx.channel().remoteAddress() instanceof InetSocketAddress peer
                    ? peer.getAddress() : null);
            if (answer != ConnectAnswer.ADMITTED) {
                refuseConnect(ctx, version != 5 ? MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE
                        : answer == ConnectAnswer.BUSY ? MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_BUSY
                        : MqttConnectReturnCode.CONNECTION_REFUSED_CONNECTION_RATE_EXCEEDED);
                return;
            }
            Session existing = target.current(mnId);
            long epoch = System.currentTimeMillis() * 1_000;
            if (existing != null) {
                epoch = Math.max(epoch, existing.epoch() + 1);
                if (existing.link() instanceof MqttLink previous) {
                    previous.takenOver();
                }
            }
            link = (MqttLink) target.open(mnId, epoch, granted, session -> {
                // after the session it replaces has closed (and kept its subscriptions, if it was to be kept)
                long now = System.currentTimeMillis();
                Set<String> resumed = null;
                if (cleanStart) {
                    sessions.forget(clientId);
                } else {
                    resumed = sessions.resume(clientId, now);
                }
                return new MqttLink(session, target, ctx.channel(), topics, version, inflight, maximumPacketSize,
                        sessions, expirySeconds, resumed);
            }).link();
        });
    }

    private void publish(ChannelHandlerContext ctx, MqttPublishMessage publish) {
        MqttQoS qos = publish.fixedHeader().qosLevel();
        if (qos == MqttQoS.EXACTLY_ONCE) {
            // CONNACK told MQTT 5 clients Maximum QoS 1; QoS 2 would need exactly-once to the application
            disconnect(ctx, MqttReasonCodes.Disconnect.QOS_NOT_SUPPORTED, "qos-2");
            return;
        }
        MqttProperties properties = publish.variableHeader().properties();
        String topic = aliasedTopic(publish.variableHeader().topicName(), properties);
        if (topic == null) {
            disconnect(ctx, MqttReasonCodes.Disconnect.TOPIC_ALIAS_INVALID, "mqtt-topic-alias");
            return;
        }
        int ref = qos == MqttQoS.AT_LEAST_ONCE ? publish.variableHeader().packetId() : 0;
        byte[] payload = ByteBufUtil.getBytes(publish.payload());
        UUID messageId = messageId(properties);
        Long ttlMs = properties.getProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL)
                instanceof MqttProperties.IntegerProperty expiry
                ? Integer.toUnsignedLong(expiry.value()) * 1_000L : null;
        onShard(() -> {
            shard.heard(link.session);
            if (ref > 0 && !link.inboundPublish()) {
                // MQTT 5 section 4.9: more unacknowledged QoS 1 publishes than CONNACK's Receive Maximum
                disconnect(ctx, MqttReasonCodes.Disconnect.RECEIVE_MAXIMUM_EXCEEDED, "mqtt-receive-maximum");
                return;
            }
            String channel = DeviceTopics.channel(topic);
            String group = DeviceTopics.group(topic);
            if (channel != null) {
                link.uplink(ref, new Uplink.ToChannel(messageId, channel, null, payload, ttlMs,
                        stringProperty(properties, MqttProperties.RESPONSE_TOPIC),
                        properties.getProperty(MqttProperties.CORRELATION_DATA)
                                instanceof MqttProperties.BinaryProperty data ? data.value() : null));
            } else if (group != null) {
                link.uplink(ref, new Uplink.ToGroup(messageId, group, null, payload, ttlMs));
            } else if (topic.equals(link.topics().context)) {
                context(ref, payload);
            } else {
                shard.reject(link.session, ref, Refusal.FORBIDDEN_CHANNEL, "publish to app/<channel>, "
                        + DeviceTopics.GROUP_PREFIX + "<definerId>/<name> or " + link.topics().context + "; '" + topic
                        + "' is none of them");
            }
        });
    }

    /**
     * The topic a publish names, through MQTT 5's Topic Alias (section 3.3.2.3.4): a publish with a topic and an alias
     * sets the alias, one with an empty topic uses it. Null for an alias out of range or not set.
     */
    private String aliasedTopic(String topic, MqttProperties properties) {
        if (!(properties.getProperty(MqttProperties.TOPIC_ALIAS) instanceof MqttProperties.IntegerProperty alias)) {
            return topic.isEmpty() ? null : topic;
        }
        int index = alias.value();
        if (index < 1 || index > TOPIC_ALIAS_MAXIMUM) {
            return null;
        }
        if (topicAliases == null) {
            topicAliases = new String[TOPIC_ALIAS_MAXIMUM + 1];
        }
        if (topic.isEmpty()) {
            return topicAliases[index];
        }
        topicAliases[index] = topic;
        return topic;
    }

    /** A context report, JSON {@code {"latitude","longitude","battery","attributes"}}, to ckc.context. */
    private void context(int ref, byte[] payload) {
        Context context;
        try {
            context = CONTEXT_READER.readValue(payload);
        } catch (IOException | RuntimeException e) {
            shard.reject(link.session, ref, Refusal.MALFORMED, "a context report is JSON {\"latitude\", "
                    + "\"longitude\", \"battery\", \"attributes\"}: " + e.getMessage());
            return;
        }
        shard.context(link.session, context);
        link.acknowledge(ref);
    }

    private static String stringProperty(MqttProperties properties, int type) {
        return properties.getProperty(type) instanceof MqttProperties.StringProperty value ? value.value() : null;
    }

    /** The message id a device gives in the user property {@code message-id} (a UUID), or a new one. */
    static UUID messageId(MqttProperties properties) {
        UUID given = MqttUserProperties.messageId(properties);
        return given != null ? given : UUID.randomUUID();
    }

    private void subscribe(ChannelHandlerContext ctx, MqttSubscribeMessage subscribe) {
        int packetId = subscribe.idAndPropertiesVariableHeader().messageId();
        List<MqttTopicSubscription> asked = List.copyOf(subscribe.payload().topicSubscriptions());
        onShard(() -> {
            List<String> granted = new ArrayList<>();
            int[] codes = new int[asked.size()];
            for (int i = 0; i < codes.length; i++) {
                MqttTopicSubscription subscription = asked.get(i);
                if (link.topics().maySubscribe(subscription.topicFilter())) {
                    granted.add(subscription.topicFilter());
                    codes[i] = Math.min(subscription.qualityOfService().value(), MqttQoS.AT_LEAST_ONCE.value());
                } else {
                    metrics.rejected.labelValues("SUBSCRIBE_NOT_AUTHORIZED").inc();
                    codes[i] = version == 5 ? MqttReasonCodes.SubAck.NOT_AUTHORIZED.byteValue() & 0xff
                            : MqttQoS.FAILURE.value();
                }
            }
            ctx.writeAndFlush(new MqttSubAckMessage(
                    new MqttFixedHeader(MqttMessageType.SUBACK, false, MqttQoS.AT_MOST_ONCE, false, 0),
                    MqttMessageIdVariableHeader.from(packetId).withEmptyProperties(), new MqttSubAckPayload(codes)));
            link.subscribed(granted);
        });
    }

    private void unsubscribe(ChannelHandlerContext ctx, MqttUnsubscribeMessage unsubscribe) {
        List<String> filters = List.copyOf(unsubscribe.payload().topics());
        int packetId = unsubscribe.idAndPropertiesVariableHeader().messageId();
        onShard(() -> link.unsubscribed(filters));
        MqttMessageBuilders.UnsubAckBuilder ack = MqttMessageBuilders.unsubAck().packetId(packetId);
        if (version == 5) {
            filters.forEach(f -> ack.addReasonCode((short) MqttReasonCodes.UnsubAck.SUCCESS.byteValue()));
        }
        ctx.writeAndFlush(ack.build());
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof IdleStateEvent) {
            disconnect(ctx, MqttReasonCodes.Disconnect.KEEP_ALIVE_TIMEOUT, "keep-alive");
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (shard != null) {
            Uplink.ToChannel lastWill = will;
            onShard(() -> {
                publishWill(lastWill);
                shard.fail(link.session, "connection-lost");
            });
        }
    }

    /**
     * The device's Will (MQTT 3.1.2.5), when its connection ended without a DISCONNECT: the gateway publishes it on
     * the device's behalf, as a message of its session, before the session closes. A Will to any topic but
     * {@code app/<channel>} was refused at CONNECT.
     */
    private void publishWill(Uplink.ToChannel lastWill) {
        if (lastWill != null) {
            metrics.wills.inc();
            shard.uplink(link.session, 0, lastWill);
        }
    }

    /** The Will of a CONNECT, or null; throws when it names a topic a device may not publish to. */
    private static Uplink.ToChannel will(MqttConnectMessage connect) {
        if (!connect.variableHeader().isWillFlag()) {
            return null;
        }
        String channel = DeviceTopics.channel(connect.payload().willTopic());
        if (channel == null) {
            throw new IllegalArgumentException(connect.payload().willTopic());
        }
        return new Uplink.ToChannel(messageId(connect.payload().willProperties()), channel, null,
                connect.payload().willMessageInBytes());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        metrics.malformedFrames.labelValues("mqtt-io").inc();
        ctx.close();
    }

    private void malformed(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof MqttUnacceptableProtocolVersionException) {
            metrics.malformedFrames.labelValues("mqtt-version").inc();
            refuseConnect(ctx, MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION);
        } else if (cause instanceof MqttIdentifierRejectedException) {
            metrics.malformedFrames.labelValues("mqtt-client-id").inc();
            refuseConnect(ctx, MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED);
        } else if (cause instanceof TooLongFrameException) {
            disconnect(ctx, MqttReasonCodes.Disconnect.PACKET_TOO_LARGE, "mqtt-too-large");
        } else {
            disconnect(ctx, MqttReasonCodes.Disconnect.MALFORMED_PACKET, "mqtt-malformed");
        }
    }

    private void protocolError(ChannelHandlerContext ctx) {
        disconnect(ctx, MqttReasonCodes.Disconnect.PROTOCOL_ERROR, "mqtt-protocol");
    }

    /** Closes the connection, with an MQTT 5 DISCONNECT saying why; counted by {@code reason}. */
    private void disconnect(ChannelHandlerContext ctx, MqttReasonCodes.Disconnect code, String reason) {
        metrics.malformedFrames.labelValues(reason).inc();
        if (version == 5) {
            ctx.writeAndFlush(MqttMessageBuilders.disconnect().reasonCode(code.byteValue()).build())
                    .addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }

    private void refuseConnect(ChannelHandlerContext ctx, MqttConnectReturnCode code) {
        MqttConnAckMessage refusal = MqttMessageBuilders.connAck().returnCode(code).sessionPresent(false).build();
        ctx.writeAndFlush(refusal).addListener(ChannelFutureListener.CLOSE);
    }

    /** Runs on the session's shard loop, unless the session is gone (refused, closed or taken over). */
    private void onShard(Runnable task) {
        shard.execute(() -> {
            if (link != null && shard.current(link.session.mnId()) == link.session) {
                task.run();
            }
        });
    }
}
