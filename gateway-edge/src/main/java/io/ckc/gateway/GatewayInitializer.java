package io.ckc.gateway;

import io.ckc.protocol.netty.FrameDatagramDecoder;
import io.ckc.protocol.netty.FrameDatagramEncoder;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.DatagramChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Supplier;

/** Builds the gateway's UDP pipeline: [link hook] → frame decoder/encoder → session handler. */
final class GatewayInitializer extends ChannelInitializer<DatagramChannel> {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayInitializer.class);

    private final MnSessionHandler sessions;
    private final GatewayMetrics metrics;
    private final Supplier<ChannelHandler> linkHook;

    /**
     * @param linkHook an optional first handler, for tests that drop or reorder datagrams; null for none
     */
    GatewayInitializer(MnSessionHandler sessions, GatewayMetrics metrics, Supplier<ChannelHandler> linkHook) {
        this.sessions = sessions;
        this.metrics = metrics;
        this.linkHook = linkHook;
    }

    @Override
    protected void initChannel(DatagramChannel channel) {
        if (linkHook != null) {
            channel.pipeline().addLast("link-hook", linkHook.get());
        }
        channel.pipeline()
                .addLast("frame-encoder", FrameDatagramEncoder.INSTANCE)
                .addLast("frame-decoder", new FrameDatagramDecoder((sender, error) -> {
                    metrics.malformedFrames.labelValues(error.reason().name()).inc();
                    LOG.debug("Dropped malformed datagram from {}: {}", sender, error.getMessage());
                }))
                .addLast("sessions", sessions);
    }
}
