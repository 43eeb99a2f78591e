package io.ckc.jobs.io;

import io.ckc.jobs.records.RawRecord;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Passes Kafka records through untouched, so a bad record never fails the source. */
public final class RawRecordDeserializer implements KafkaRecordDeserializationSchema<RawRecord> {

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RawRecord> out) {
        out.collect(new RawRecord(record.topic(), record.partition(), record.offset(), record.key(), record.value()));
    }

    @Override
    public TypeInformation<RawRecord> getProducedType() {
        return TypeInformation.of(RawRecord.class);
    }
}
