package io.ckc.protocol.kafka;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;

/**
 * How every CKC Kafka record is written and read. The records a message crosses on its round trip ({@code AppMessage},
 * {@code Unicast}, {@code GatewayCommand}, {@code Receipt}, {@code UnsentMessage}) are written in binary: one format
 * byte and the Protocol Buffers wire format of {@code records.proto} (see {@link BinaryRecords}); every other record,
 * the low-rate ones that SQL rules and dashboards read, is CKC's JSON ({@link Json}). Either form is read for any
 * type, so records written before an upgrade, or by an application that writes JSON, are still read; anything else
 * raises {@link IOException} with the reason, for the caller to dead-letter. Thread-safe; in Flink functions make it
 * in {@code open()}.
 */
public final class RecordFormat {

    private final ObjectMapper json = Json.newMapper();

    public byte[] write(Object record) {
        return BinaryRecords.writes(record) ? BinaryRecords.write(record) : Json.write(json, record);
    }

    /** Reads a record of either form; a bad one raises {@link IOException} saying what is wrong. */
    public <T> T read(byte[] value, Class<T> type) throws IOException {
        if (value == null) {
            throw new IOException("null value for " + type.getSimpleName());
        }
        if (isBinary(value)) {
            if (!BinaryRecords.reads(type)) {
                throw new IOException("a binary record where " + type.getSimpleName() + " (JSON) belongs");
            }
            return BinaryRecords.read(value, type);
        }
        return Json.read(json, value, type);
    }

    /** Whether CKC writes records of this type in the binary form. */
    public static boolean writesBinary(Class<?> type) {
        return BinaryRecords.reads(type);
    }

    /** Whether a record's value is in the binary form. */
    public static boolean isBinary(byte[] value) {
        return value != null && value.length > 0 && value[0] == BinaryRecords.FORMAT;
    }
}
