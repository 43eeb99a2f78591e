package io.ckc.gateway;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CountDownLatch;

/** Starts a gateway from environment variables (see {@link GatewayConfig}) and stops it on SIGTERM. */
public final class GatewayServer {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayServer.class);

    private GatewayServer() {
    }

    public static void main(String[] args) throws Exception {
        GatewayConfig config = GatewayConfig.fromEnv(System.getenv());
        Gateway gateway = Gateway.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                gateway.close();
            } catch (Exception e) {
                LOG.warn("Gateway did not stop cleanly", e);
            } finally {
                stopped.countDown();
            }
        }, "ckc-gateway-shutdown"));
        stopped.await();
    }
}
