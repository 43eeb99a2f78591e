package io.ckc.gateway;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Starts the gateways of this process from environment variables (see {@link GatewayConfig}: one, or the
 * several of CKC_GATEWAY_IDS) on one {@link GatewayHost}, and stops them on SIGTERM.
 */
public final class GatewayServer {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayServer.class);

    private GatewayServer() {
    }

    public static void main(String[] args) throws Exception {
        List<GatewayConfig> configs = GatewayConfig.hostedFromEnv(System.getenv());
        // Why one host for several: one process's gateways then add sessions and records, not threads and
        // Kafka connections, on the machine's cores.
        GatewayHost host = GatewayHost.open(configs);
        List<Gateway> gateways = new ArrayList<>();
        try {
            for (GatewayConfig config : configs) {
                gateways.add(Gateway.start(config, host, null));
            }
        } catch (Exception e) {
            // Why stop the ones started: their threads would keep a half-started process alive.
            LOG.error("Gateway {} did not start; stopping the {} started before it",
                    configs.get(gateways.size()).gatewayId(), gateways.size(), e);
            stop(gateways, host);
            System.exit(1);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                stop(gateways, host);
            } finally {
                stopped.countDown();
            }
        }, "ckc-gateway-shutdown"));
        stopped.await();
    }

    private static void stop(List<Gateway> gateways, GatewayHost host) {
        for (Gateway gateway : gateways) {
            try {
                gateway.close();
            } catch (Exception e) {
                LOG.warn("Gateway {} did not stop cleanly", gateway.id(), e);
            }
        }
        host.close();
    }
}
