package io.ckc.gateway;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ckc.protocol.kafka.Json;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.GatewayCommand;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

/**
 * Reads this gateway's own topic ({@code ckc.gw.<id>}) and nothing else, handing each command to
 * the session handler. Records that do not parse go to the dead-letter topic.
 */
final class DeliveryConsumer implements Runnable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeliveryConsumer.class);

    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final MnSessionHandler sessions;
    private final CorePublisher publisher;
    private final GatewayMetrics metrics;
    private final ObjectMapper mapper = Json.newMapper();
    private final Thread thread;
    private volatile boolean running = true;

    DeliveryConsumer(GatewayConfig config, MnSessionHandler sessions, CorePublisher publisher, GatewayMetrics metrics) {
        this.topic = config.topics().gateway(config.gatewayId());
        this.sessions = sessions;
        this.publisher = publisher;
        this.metrics = metrics;
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafkaBootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "ckc-gateway-" + config.gatewayId());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "ckc-gateway-" + config.gatewayId());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        this.consumer = new KafkaConsumer<>(props);
        this.thread = new Thread(this, "ckc-delivery-consumer");
    }

    void start() {
        consumer.subscribe(List.of(topic));
        thread.start();
    }

    @Override
    public void run() {
        try {
            while (running) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    handle(record);
                }
            }
        } catch (WakeupException e) {
            if (running) {
                throw e;
            }
        } catch (RuntimeException e) {
            metrics.kafkaErrors.inc();
            LOG.error("Delivery consumer of {} stopped", topic, e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void handle(ConsumerRecord<String, byte[]> record) {
        GatewayCommand command;
        try {
            command = Json.read(mapper, record.value(), GatewayCommand.class);
        } catch (IOException e) {
            metrics.deadLetters.inc();
            publisher.deadLetter(new DeadLetter("gateway", record.topic(), record.partition(), record.offset(),
                    "unparseable gateway command: " + e.getMessage(),
                    record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8), record.value(),
                    System.currentTimeMillis()));
            return;
        }
        if (command instanceof GatewayCommand.Deliver deliver) {
            sessions.deliver(deliver.unicast());
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(10_000);
    }
}
