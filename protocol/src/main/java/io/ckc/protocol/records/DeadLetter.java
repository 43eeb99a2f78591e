package io.ckc.protocol.records;

/** A record that could not be processed, with the reason and where it came from, on {@code ckc.dead-letter}. */
public record DeadLetter(String source, String sourceTopic, int partition, long offset, String reason, byte[] key,
                         byte[] value, long timestamp) {
}
