package io.ckc.jobs.records;

/** A Kafka record as read, before parsing: parsing happens in a function that can dead-letter it. */
public record RawRecord(String topic, int partition, long offset, byte[] key, byte[] value) {
}
