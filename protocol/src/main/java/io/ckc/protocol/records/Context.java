package io.ckc.protocol.records;

import java.util.Map;

/**
 * Context a mobile node reports with its messages: position, battery and free-form attributes.
 * Every field may be absent (null); attributes is never null.
 */
public record Context(Double latitude, Double longitude, Double battery, Map<String, String> attributes) {

    public Context {
        attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
    }

    public static Context position(double latitude, double longitude) {
        return new Context(latitude, longitude, null, Map.of());
    }
}
