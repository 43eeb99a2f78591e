package io.ckc.perf;

import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.RecordFormat;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Follows a topic of CKC JSON records from its current end on a daemon thread, so only the records
 * of this run count; an unreadable record is reported and skipped. Closing stops it.
 */
final class TopicFollower implements AutoCloseable {

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    /** Starts following; returns once the end of the topic is known, before anything is sent. */
    <T> TopicFollower(String bootstrap, String topic, Class<T> type, Consumer<T> sink, PrintStream out)
            throws InterruptedException {
        Properties props = KafkaClientConfig.client(bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        CountDownLatch positioned = new CountDownLatch(1);
        RecordFormat format = new RecordFormat();
        thread = new Thread(() -> {
            try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
                List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                        .map(p -> new TopicPartition(topic, p.partition())).toList();
                consumer.assign(partitions);
                consumer.seekToEnd(partitions);
                partitions.forEach(consumer::position); // resolve the end now
                positioned.countDown();
                while (running.get()) {
                    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                        try {
                            sink.accept(format.read(record.value(), type));
                        } catch (IOException e) {
                            out.println("Skipping an unreadable record on " + topic + ": " + e.getMessage());
                        }
                    }
                }
            }
        }, "follow-" + topic);
        thread.setDaemon(true);
        thread.start();
        if (!positioned.await(60, TimeUnit.SECONDS)) {
            close();
            throw new IllegalStateException("cannot read " + topic + " from " + bootstrap);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.join(5_000);
    }
}
