package io.ckc.gateway;

import com.sun.net.httpserver.HttpServer;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** What the probes see: a hung event loop fails liveness; a Kafka out of reach fails only readiness. */
class GatewayHealthTest {

    private final GatewayHealth health = new GatewayHealth();
    private final HttpClient http = HttpClient.newHttpClient();
    private EventLoopGroup loops;
    private HttpServer server;

    @BeforeEach
    void serve() throws Exception {
        loops = new DefaultEventLoopGroup(2);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", health);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        loops.shutdownGracefully();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aGatewayThatHasNotStartedIsNeitherLiveNorReady() throws Exception {
        assertThat(get("/health/live").statusCode()).isEqualTo(503);
        assertThat(get("/health/ready").body()).contains("starting");
        assertThat(get("/elsewhere").statusCode()).isEqualTo(404);
    }

    @Test
    void aHungEventLoopFailsLivenessAndAKafkaOutOfReachOnlyReadiness() throws Exception {
        AtomicBoolean kafka = new AtomicBoolean(true);
        health.watch(loops, kafka::get);
        assertThat(get("/health/live").statusCode()).isEqualTo(200);
        assertThat(get("/health/ready").statusCode()).isEqualTo(200);

        kafka.set(false);
        assertThat(get("/health/live").statusCode()).as("no restart for a Kafka outage").isEqualTo(200);
        HttpResponse<String> ready = get("/health/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body()).contains("Kafka");

        CountDownLatch release = new CountDownLatch(1);
        loops.next().execute(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            HttpResponse<String> live = get("/health/live");
            assertThat(live.statusCode()).isEqualTo(503);
            assertThat(live.body()).contains("did not answer");
        } finally {
            release.countDown();
        }
        assertThat(get("/health/live").statusCode()).isEqualTo(200);
    }

    @Test
    void aProducerWithoutABrokerConnectionIsNotConnected() {
        MockProducer<String, String> producer = new MockProducer<>(true, null, new StringSerializer(),
                new StringSerializer());
        assertThat(GatewayHealth.connected(producer)).isFalse();
    }
}
