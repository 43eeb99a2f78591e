package io.ckc.gateway;

import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.EventLoopGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Starts the gateways of this process from environment variables (see {@link GatewayConfig}: one, or the
 * several of CKC_GATEWAY_IDS on shared event loops) and stops them on SIGTERM.
 */
public final class GatewayServer {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayServer.class);

    private GatewayServer() {
    }

    public static void main(String[] args) throws Exception {
        List<GatewayConfig> configs = GatewayConfig.hostedFromEnv(System.getenv());
        // Why shared loops for several: one process's gateways then add sessions, not threads, on the host's cores.
        EventLoopGroup shared = configs.size() > 1
                ? DatagramTransport.current().newGroup(configs.get(0).eventLoops()) : null;
        List<Gateway> gateways = new ArrayList<>();
        try {
            for (GatewayConfig config : configs) {
                gateways.add(Gateway.start(config, shared, null));
            }
        } catch (Exception e) {
            // Why stop the ones started: their threads would keep a half-started process alive.
            LOG.error("Gateway {} did not start; stopping the {} started before it",
                    configs.get(gateways.size()).gatewayId(), gateways.size(), e);
            stop(gateways, shared);
            System.exit(1);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                stop(gateways, shared);
            } finally {
                stopped.countDown();
            }
        }, "ckc-gateway-shutdown"));
        stopped.await();
    }

    private static void stop(List<Gateway> gateways, EventLoopGroup shared) {
        for (Gateway gateway : gateways) {
            try {
                gateway.close();
            } catch (Exception e) {
                LOG.warn("Gateway {} did not stop cleanly", gateway.id(), e);
            }
        }
        if (shared != null) {
            shared.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
