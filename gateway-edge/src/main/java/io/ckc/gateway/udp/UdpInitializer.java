package io.ckc.gateway.udp;

import io.ckc.gateway.core.GatewayMetrics;
import io.ckc.protocol.netty.FrameDatagramDecoder;
import io.ckc.protocol.netty.FrameDatagramEncoder;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Supplier;

/**
 * Builds a reliable-UDP socket's pipeline: [link hook] → frame encoder → [DTLS] → frame decoder → hand-over to the
 * node's shard.
 */
final class UdpInitializer extends ChannelInitializer<Channel> {

    private static final Logger LOG = LoggerFactory.getLogger(UdpInitializer.class);

    private final UdpFrameHandler frames;
    private final FrameDatagramDecoder decoder;
    private final Supplier<ChannelHandler> linkHook;
    private final DtlsSessions dtls;
    static final String DTLS = "dtls";

    /**
     * @param dtls     the DTLS sessions, whose handler opens datagrams into frames; null in the insecure mode
     * @param linkHook an optional first handler, for tests that drop or reorder datagrams; null for none
     */
    UdpInitializer(UdpFrameHandler frames, GatewayMetrics metrics, DtlsSessions dtls, Supplier<ChannelHandler> linkHook) {
        this.frames = frames;
        this.dtls = dtls;
        this.linkHook = linkHook;
        this.decoder = new FrameDatagramDecoder((sender, error) -> {
            metrics.malformedFrames.labelValues(error.reason().name()).inc();
            LOG.debug("Dropped malformed datagram from {}: {}", sender, error.getMessage());
        });
    }

    @Override
    protected void initChannel(Channel channel) {
        if (linkHook != null) {
            channel.pipeline().addLast("link-hook", linkHook.get());
        }
        channel.pipeline().addLast("frame-encoder", FrameDatagramEncoder.INSTANCE);
        if (dtls != null) {
            channel.pipeline().addLast(DTLS, new DtlsHandler(dtls)); // frames in and out, sealed records on the socket
        }
        channel.pipeline()
                .addLast("frame-decoder", decoder)
                .addLast("frames", frames);
    }
}
