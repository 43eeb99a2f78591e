package io.ckc.jobs.io;

import io.ckc.protocol.kafka.IdleFlusher;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.IOException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The at-least-once Kafka sink of CKC's jobs: each record sent as it comes, everything sent acknowledged before a
 * checkpoint completes (so a restore sends again only what Kafka may not have), and the producer's linger adaptive
 * ({@link IdleFlusher}): a record that finds nothing in flight goes at once, one behind others waits to share their
 * request. Why not the connector's {@code KafkaSink} here: its producer is its own, so nothing can ask it to send a
 * lingering record early, and a fixed linger either costs every record of an idle pipeline the whole wait or costs a
 * busy one a request per few records. Exactly-once stays with {@code KafkaSink} (transactions).
 */
final class AtLeastOnceKafkaSink<T> implements Sink<T> {

    private final String name;
    private final Properties producerConfig;
    private final KafkaIo.RecordMaker<T> records;

    /** @param producerConfig the servers and the producer settings, serializers aside */
    AtLeastOnceKafkaSink(String name, Properties producerConfig, KafkaIo.RecordMaker<T> records) {
        this.name = name;
        this.producerConfig = producerConfig;
        this.records = records;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        Properties props = new Properties();
        props.putAll(producerConfig);
        String clientId = "ckc-" + name + "-" + context.getTaskInfo().getIndexOfThisSubtask();
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new Writer<>(new KafkaProducer<>(props), records, context.metricGroup().getNumRecordsSendCounter(),
                clientId + "-idle-flusher");
    }

    static final class Writer<T> implements SinkWriter<T> {
        private final Producer<byte[], byte[]> producer;
        private final KafkaIo.RecordMaker<T> records;
        private final Counter sent;
        private final IdleFlusher flusher;
        /** The first send that failed since the last check: the task fails with it, and its restore sends again. */
        private final AtomicReference<Exception> failed = new AtomicReference<>();

        Writer(Producer<byte[], byte[]> producer, KafkaIo.RecordMaker<T> records, Counter sent, String flusherThread) {
            this.producer = producer;
            this.records = records;
            this.sent = sent;
            this.flusher = new IdleFlusher(producer, flusherThread);
        }

        @Override
        public void write(T element, Context context) throws IOException {
            checkFailed();
            ProducerRecord<byte[], byte[]> record = records.record(element, context.timestamp());
            flusher.send(producer, record, (metadata, error) -> {
                if (error != null) {
                    failed.compareAndSet(null, error);
                }
            });
            sent.inc();
        }

        /** Before a checkpoint: everything written so far is in Kafka, or the checkpoint fails. */
        @Override
        public void flush(boolean endOfInput) throws IOException {
            producer.flush();
            checkFailed();
        }

        private void checkFailed() throws IOException {
            // Why a read first: a write per record would be a needless atomic exchange on the task's hot path.
            Exception error = failed.get() == null ? null : failed.getAndSet(null);
            if (error != null) {
                throw new IOException("A record could not be written to Kafka", error);
            }
        }

        @Override
        public void close() {
            flusher.close();
            producer.close(Duration.ofSeconds(5));
        }
    }
}
