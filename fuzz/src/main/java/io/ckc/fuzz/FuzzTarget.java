package io.ckc.fuzz;

import io.ckc.gateway.mqtt.MqttConnectionTarget;
import io.ckc.gateway.udp.UdpSessionTarget;
import io.ckc.jobs.echo.EchoRecordsTarget;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Every fuzz target: each parser of input from outside the process. A target is a class with Jazzer's
 * {@code public static void fuzzerTestOneInput(byte[])} (a finding is any exception it lets out) and the
 * well-formed inputs the fuzzer starts from.
 */
public enum FuzzTarget {

    FRAME_CODEC("frame-codec", FrameCodecTarget.class, FrameCodecTarget::fuzzerTestOneInput, FrameCodecTarget::seeds),
    UDP_SESSION("udp-session", UdpSessionTarget.class, UdpSessionTarget::fuzzerTestOneInput, UdpSessionTarget::seeds),
    MQTT_CONNECTION("mqtt-connection", MqttConnectionTarget.class, MqttConnectionTarget::fuzzerTestOneInput,
            MqttConnectionTarget::seeds),
    DELIVERY_RECORDS("delivery-records", DeliveryRecordsTarget.class, DeliveryRecordsTarget::fuzzerTestOneInput,
            DeliveryRecordsTarget::seeds),
    POA_RECORDS("poa-records", PoaRecordsTarget.class, PoaRecordsTarget::fuzzerTestOneInput, PoaRecordsTarget::seeds),
    ECHO_RECORDS("echo-records", EchoRecordsTarget.class, EchoRecordsTarget::fuzzerTestOneInput,
            EchoRecordsTarget::seeds),
    CONTEXT_RECORDS("context-records", ContextRecordsTarget.class, ContextRecordsTarget::fuzzerTestOneInput,
            ContextRecordsTarget::seeds);

    private final String label;
    private final Class<?> type;
    private final Consumer<byte[]> target;
    private final Supplier<List<byte[]>> seeds;

    FuzzTarget(String label, Class<?> type, Consumer<byte[]> target, Supplier<List<byte[]>> seeds) {
        this.label = label;
        this.type = type;
        this.target = target;
        this.seeds = seeds;
    }

    /** The name on the command line, in RESULT lines and of its corpus folder. */
    public String label() {
        return label;
    }

    public String className() {
        return type.getName();
    }

    /** Runs one input in this JVM, as the fuzzer would; a finding is thrown. */
    public void run(byte[] input) {
        target.accept(input);
    }

    public List<byte[]> seeds() {
        return seeds.get();
    }

    public static FuzzTarget of(String label) {
        return Arrays.stream(values()).filter(t -> t.label.equals(label)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no fuzz target '" + label + "'; there are "
                        + Arrays.stream(values()).map(FuzzTarget::label).toList()));
    }
}
