package io.ckc.protocol.kafka;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one JSON shape of every CKC Kafka record (plain Jackson). Each user makes its own mapper with
 * {@link #newMapper()}; in Flink functions it is a transient field created in {@code open()}.
 */
public final class Json {

    private Json() {
    }

    public static ObjectMapper newMapper() {
        return JsonMapper.builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .build();
    }

    public static byte[] write(ObjectMapper mapper, Object value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialise " + value.getClass().getSimpleName(), e);
        }
    }

    /** Parses a record; a bad one raises {@link IOException} with Jackson's description of what is wrong. */
    public static <T> T read(ObjectMapper mapper, byte[] bytes, Class<T> type) throws IOException {
        if (bytes == null) {
            throw new IOException("null value for " + type.getSimpleName());
        }
        return mapper.readValue(bytes, type);
    }
}
