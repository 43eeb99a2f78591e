package io.ckc.gateway;

import io.ckc.gateway.core.KafkaCorePublisher;
import io.ckc.protocol.kafka.IdleFlusher;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.EventLoopGroup;
import org.apache.kafka.clients.producer.KafkaProducer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * What the gateways of one process share: the event loops their sessions are sharded over (each gateway's shard
 * still lives on one loop) and the Kafka producer they write through. The process opens it before its gateways
 * and closes it after the last of them has stopped; a gateway never closes what it shares.
 */
public final class GatewayHost implements AutoCloseable {

    private final EventLoopGroup loops;
    private final KafkaProducer<String, byte[]> producer;
    private final IdleFlusher flusher;
    private final String producerClientId;

    private GatewayHost(EventLoopGroup loops, KafkaProducer<String, byte[]> producer, String producerClientId) {
        this.loops = loops;
        this.producer = producer;
        this.flusher = new IdleFlusher(producer, producerClientId + "-idle-flusher");
        this.producerClientId = producerClientId;
    }

    /**
     * Opens the shared loops and producer for the given gateways, with the event loops and Kafka settings of
     * the first (the hosted configurations of {@link GatewayConfig#hostedFromEnv} differ only in id and ports).
     */
    public static GatewayHost open(List<GatewayConfig> hosted) {
        if (hosted.isEmpty()) {
            throw new IllegalArgumentException("a gateway host needs at least one gateway");
        }
        GatewayConfig first = hosted.get(0);
        String clientId = "ckc-gateways-" + hosted.stream().map(GatewayConfig::gatewayId).collect(Collectors.joining("_"));
        EventLoopGroup loops = DatagramTransport.current().newGroup(first.eventLoops());
        return new GatewayHost(loops, KafkaCorePublisher.newProducer(first.core(), clientId), clientId);
    }

    public EventLoopGroup loops() {
        return loops;
    }

    public KafkaProducer<String, byte[]> producer() {
        return producer;
    }

    /** What makes the shared producer's linger apply only while its records are in flight. */
    public IdleFlusher flusher() {
        return flusher;
    }

    /** The Kafka client id of the shared producer (its network thread is named after it). */
    public String producerClientId() {
        return producerClientId;
    }

    /** Stops the loops at once and drops the producer with what it has not sent: a crash, for {@link Gateway#crash()}. */
    void crash() {
        loops.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        flusher.close();
        producer.close(Duration.ZERO);
    }

    /** Stops the loops (running what their gateways left queued on them) and then closes the producer, which sends what it holds. */
    @Override
    public void close() {
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        flusher.close();
        producer.close(Duration.ofSeconds(5));
    }
}
