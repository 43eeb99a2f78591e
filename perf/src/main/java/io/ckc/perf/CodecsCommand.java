package io.ckc.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ckc.protocol.kafka.Json;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.Unicast;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * {@code perf codecs}: what writing and reading one record costs in each candidate encoding of the per-message
 * topics, on this machine, in one run: CKC's JSON (Jackson, the format before 2026-11-28), the binary records CKC
 * writes now (Protocol Buffers wire format by protobuf-java's coded streams, {@code RecordFormat}), and Apache Avro
 * twice, as its users write it without generated classes ({@code GenericRecord} with its datum writer and reader) and
 * field by field on its binary encoder and decoder, as CKC does with protobuf. Each codec writes and reads the same
 * unicast and app message, round after round in turn (A B C D A B C D), so a drift of the machine touches them
 * alike; the median round is printed: nanoseconds and bytes allocated per write+read, bytes per record.
 */
@Command(name = "codecs", mixinStandardHelpOptions = true,
        description = "Write+read cost per record of JSON, CKC's protobuf records and Avro, side by side: no stack.")
final class CodecsCommand implements Callable<Integer> {

    @Option(names = "--rounds", defaultValue = "5", description = "Rounds of every codec in turn (default ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--round-ms", defaultValue = "1000", description = "Time per codec per round, ms (default ${DEFAULT-VALUE})")
    long roundMs;

    @Option(names = "--payload-bytes", defaultValue = "64", description = "Payload size (default ${DEFAULT-VALUE})")
    int payloadBytes;

    PrintStream out = System.out;

    /** One way to write a record and read it back. */
    interface Codec {
        String name();

        byte[] write(Object record);

        Object read(byte[] bytes, Class<?> type) throws IOException;
    }

    /** A codec's median round for one record type. */
    record Figure(String codec, String record, int bytes, double nanosPerRecord, double allocatedPerRecord) {
    }

    @Override
    public Integer call() throws Exception {
        byte[] payload = new byte[payloadBytes];
        Arrays.fill(payload, (byte) 'x');
        String node = UUID.randomUUID().toString();
        Unicast unicast = new Unicast(UUID.randomUUID().toString(), "echo", node, payload, 300_000L,
                System.currentTimeMillis(), false);
        AppMessage message = new AppMessage(UUID.randomUUID().toString(), node, "gw-1", "echo", payload,
                new Context(-22.9068, -43.1729, 0.81, Map.of()), System.currentTimeMillis());
        List<Figure> figures = measure(List.of(unicast, message), codecs(), rounds, roundMs);
        for (Figure f : figures) {
            Figure json = figures.stream().filter(j -> j.record().equals(f.record()) && j.codec().equals("json"))
                    .findFirst().orElseThrow();
            out.printf(Locale.ROOT, "RESULT scenario=codecs codec=%s record=%s bytes=%d write_read_ns=%.0f "
                            + "allocated_bytes=%.0f xjson_time=%.2f xjson_bytes=%.2f%n", f.codec(), f.record(), f.bytes(),
                    f.nanosPerRecord(), f.allocatedPerRecord(), f.nanosPerRecord() / json.nanosPerRecord(),
                    (double) f.bytes() / json.bytes());
        }
        return 0;
    }

    static List<Codec> codecs() {
        return List.of(new JsonCodec(), new CkcCodec(), new AvroGeneric(), new AvroDirect());
    }

    /** Every codec writes and reads every record for {@code roundMs}, in turn, {@code rounds} times: medians. */
    static List<Figure> measure(List<Object> records, List<Codec> codecs, int rounds, long roundMs) throws IOException {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        Map<String, List<double[]>> samples = new LinkedHashMap<>();
        Map<String, Integer> sizes = new HashMap<>();
        for (Object record : records) {
            for (Codec codec : codecs) {
                byte[] bytes = codec.write(record);
                Object back = codec.read(bytes, record.getClass());
                if (!record.equals(back)) {
                    throw new IllegalStateException(codec.name() + " changed " + record + " into " + back);
                }
                sizes.put(codec.name() + "/" + record.getClass().getSimpleName(), bytes.length);
            }
        }
        for (int round = 0; round <= rounds; round++) { // round 0 warms the JIT and is not kept
            for (Object record : records) {
                for (Codec codec : codecs) {
                    long count = 0;
                    long allocatedBefore = threads.getThreadAllocatedBytes(thread);
                    long start = System.nanoTime();
                    long deadline = start + roundMs * 1_000_000;
                    long now;
                    do {
                        for (int i = 0; i < 256; i++) {
                            codec.read(codec.write(record), record.getClass());
                        }
                        count += 256;
                        now = System.nanoTime();
                    } while (now < deadline);
                    long allocated = threads.getThreadAllocatedBytes(thread) - allocatedBefore;
                    if (round > 0) {
                        samples.computeIfAbsent(codec.name() + "/" + record.getClass().getSimpleName(),
                                k -> new ArrayList<>()).add(new double[] {(now - start) / (double) count,
                                allocated / (double) count});
                    }
                }
            }
        }
        List<Figure> figures = new ArrayList<>();
        samples.forEach((key, rows) -> {
            String[] parts = key.split("/");
            figures.add(new Figure(parts[0], parts[1], sizes.get(key), median(rows, 0), median(rows, 1)));
        });
        return figures;
    }

    private static double median(List<double[]> rows, int column) {
        double[] values = rows.stream().mapToDouble(r -> r[column]).sorted().toArray();
        return values[values.length / 2];
    }

    /** CKC's JSON, as every record was written before 2026-11-28 and as the other records still are. */
    static final class JsonCodec implements Codec {
        private final ObjectMapper mapper = Json.newMapper();

        public String name() {
            return "json";
        }

        public byte[] write(Object record) {
            return Json.write(mapper, record);
        }

        public Object read(byte[] bytes, Class<?> type) throws IOException {
            return Json.read(mapper, bytes, type);
        }
    }

    /** The binary records CKC writes now. */
    static final class CkcCodec implements Codec {
        private final RecordFormat format = new RecordFormat();

        public String name() {
            return "protobuf";
        }

        public byte[] write(Object record) {
            return format.write(record);
        }

        public Object read(byte[] bytes, Class<?> type) throws IOException {
            return format.read(bytes, type);
        }
    }

    static final Schema CONTEXT = SchemaBuilder.record("Context").namespace("ckc").fields()
            .optionalDouble("latitude").optionalDouble("longitude").optionalDouble("battery")
            .name("attributes").type().map().values().stringType().noDefault().endRecord();
    static final Schema UNICAST = SchemaBuilder.record("Unicast").namespace("ckc").fields()
            .optionalString("messageId").optionalString("sender").optionalString("recipient").optionalBytes("payload")
            .optionalLong("ttlMs").requiredLong("createdAt").requiredBoolean("receipt").optionalString("group")
            .optionalString("replyTo").optionalBytes("correlation").endRecord();
    static final Schema APP_MESSAGE = SchemaBuilder.record("AppMessage").namespace("ckc").fields()
            .optionalString("messageId").optionalString("mnId").optionalString("gatewayId").optionalString("channel")
            .optionalBytes("payload").name("context").type().optional().type(CONTEXT).requiredLong("receivedAt")
            .optionalLong("ttlMs").optionalString("replyTo").optionalBytes("correlation").endRecord();

    /** Avro as its users write it without generated classes: a GenericRecord per record, both ways. */
    static final class AvroGeneric implements Codec {
        private final GenericDatumWriter<GenericRecord> unicastWriter = new GenericDatumWriter<>(UNICAST);
        private final GenericDatumReader<GenericRecord> unicastReader = new GenericDatumReader<>(UNICAST);
        private final GenericDatumWriter<GenericRecord> messageWriter = new GenericDatumWriter<>(APP_MESSAGE);
        private final GenericDatumReader<GenericRecord> messageReader = new GenericDatumReader<>(APP_MESSAGE);
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
        private BinaryEncoder encoder;
        private BinaryDecoder decoder;

        public String name() {
            return "avro-generic";
        }

        public byte[] write(Object record) {
            buffer.reset();
            encoder = EncoderFactory.get().binaryEncoder(buffer, encoder);
            try {
                if (record instanceof Unicast u) {
                    GenericRecord r = new GenericData.Record(UNICAST);
                    r.put("messageId", u.messageId());
                    r.put("sender", u.sender());
                    r.put("recipient", u.recipient());
                    r.put("payload", u.payload() == null ? null : ByteBuffer.wrap(u.payload()));
                    r.put("ttlMs", u.ttlMs());
                    r.put("createdAt", u.createdAt());
                    r.put("receipt", u.receipt());
                    r.put("group", u.group());
                    r.put("replyTo", u.replyTo());
                    r.put("correlation", u.correlation() == null ? null : ByteBuffer.wrap(u.correlation()));
                    unicastWriter.write(r, encoder);
                } else {
                    AppMessage m = (AppMessage) record;
                    GenericRecord r = new GenericData.Record(APP_MESSAGE);
                    r.put("messageId", m.messageId());
                    r.put("mnId", m.mnId());
                    r.put("gatewayId", m.gatewayId());
                    r.put("channel", m.channel());
                    r.put("payload", m.payload() == null ? null : ByteBuffer.wrap(m.payload()));
                    if (m.context() != null) {
                        GenericRecord c = new GenericData.Record(CONTEXT);
                        c.put("latitude", m.context().latitude());
                        c.put("longitude", m.context().longitude());
                        c.put("battery", m.context().battery());
                        c.put("attributes", m.context().attributes());
                        r.put("context", c);
                    }
                    r.put("receivedAt", m.receivedAt());
                    r.put("ttlMs", m.ttlMs());
                    r.put("replyTo", m.replyTo());
                    r.put("correlation", m.correlation() == null ? null : ByteBuffer.wrap(m.correlation()));
                    messageWriter.write(r, encoder);
                }
                encoder.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return buffer.toByteArray();
        }

        public Object read(byte[] bytes, Class<?> type) throws IOException {
            decoder = DecoderFactory.get().binaryDecoder(bytes, decoder);
            if (type == Unicast.class) {
                GenericRecord r = unicastReader.read(null, decoder);
                return new Unicast(string(r.get("messageId")), string(r.get("sender")), string(r.get("recipient")),
                        bytes(r.get("payload")), (Long) r.get("ttlMs"), (Long) r.get("createdAt"),
                        (Boolean) r.get("receipt"), string(r.get("group")), string(r.get("replyTo")),
                        bytes(r.get("correlation")));
            }
            GenericRecord r = messageReader.read(null, decoder);
            GenericRecord c = (GenericRecord) r.get("context");
            Context context = null;
            if (c != null) {
                Map<String, String> attributes = new HashMap<>();
                ((Map<?, ?>) c.get("attributes")).forEach((k, v) -> attributes.put(k.toString(), v.toString()));
                context = new Context((Double) c.get("latitude"), (Double) c.get("longitude"), (Double) c.get("battery"),
                        attributes);
            }
            return new AppMessage(string(r.get("messageId")), string(r.get("mnId")), string(r.get("gatewayId")),
                    string(r.get("channel")), bytes(r.get("payload")), context, (Long) r.get("receivedAt"),
                    (Long) r.get("ttlMs"), string(r.get("replyTo")), bytes(r.get("correlation")));
        }

        private static String string(Object avro) {
            return avro == null ? null : avro.toString();
        }

        private static byte[] bytes(Object avro) {
            if (avro == null) {
                return null;
            }
            ByteBuffer buffer = (ByteBuffer) avro;
            byte[] copy = new byte[buffer.remaining()];
            buffer.duplicate().get(copy);
            return copy;
        }
    }

    /** Avro's binary encoding field by field, in the schema's order, as CKC writes protobuf: no GenericRecord. */
    static final class AvroDirect implements Codec {
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
        private BinaryEncoder encoder;
        private BinaryDecoder decoder;

        public String name() {
            return "avro-direct";
        }

        public byte[] write(Object record) {
            buffer.reset();
            encoder = EncoderFactory.get().binaryEncoder(buffer, encoder);
            try {
                if (record instanceof Unicast u) {
                    string(u.messageId());
                    string(u.sender());
                    string(u.recipient());
                    bytes(u.payload());
                    optionalLong(u.ttlMs());
                    encoder.writeLong(u.createdAt());
                    encoder.writeBoolean(u.receipt());
                    string(u.group());
                    string(u.replyTo());
                    bytes(u.correlation());
                } else {
                    AppMessage m = (AppMessage) record;
                    string(m.messageId());
                    string(m.mnId());
                    string(m.gatewayId());
                    string(m.channel());
                    bytes(m.payload());
                    if (m.context() == null) {
                        encoder.writeIndex(0);
                    } else {
                        encoder.writeIndex(1);
                        optionalDouble(m.context().latitude());
                        optionalDouble(m.context().longitude());
                        optionalDouble(m.context().battery());
                        encoder.writeMapStart();
                        encoder.setItemCount(m.context().attributes().size());
                        for (Map.Entry<String, String> e : m.context().attributes().entrySet()) {
                            encoder.startItem();
                            encoder.writeString(e.getKey());
                            encoder.writeString(e.getValue());
                        }
                        encoder.writeMapEnd();
                    }
                    encoder.writeLong(m.receivedAt());
                    optionalLong(m.ttlMs());
                    string(m.replyTo());
                    bytes(m.correlation());
                }
                encoder.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return buffer.toByteArray();
        }

        private void string(String value) throws IOException {
            if (value == null) {
                encoder.writeIndex(0);
            } else {
                encoder.writeIndex(1);
                encoder.writeString(value);
            }
        }

        private void bytes(byte[] value) throws IOException {
            if (value == null) {
                encoder.writeIndex(0);
            } else {
                encoder.writeIndex(1);
                encoder.writeBytes(value);
            }
        }

        private void optionalLong(Long value) throws IOException {
            if (value == null) {
                encoder.writeIndex(0);
            } else {
                encoder.writeIndex(1);
                encoder.writeLong(value);
            }
        }

        private void optionalDouble(Double value) throws IOException {
            if (value == null) {
                encoder.writeIndex(0);
            } else {
                encoder.writeIndex(1);
                encoder.writeDouble(value);
            }
        }

        public Object read(byte[] bytes, Class<?> type) throws IOException {
            decoder = DecoderFactory.get().binaryDecoder(bytes, decoder);
            if (type == Unicast.class) {
                return new Unicast(string(), string(), string(), bytes(), optionalLong(), decoder.readLong(),
                        decoder.readBoolean(), string(), string(), bytes());
            }
            String messageId = string();
            String mnId = string();
            String gatewayId = string();
            String channel = string();
            byte[] payload = bytes();
            Context context = null;
            if (decoder.readIndex() == 1) {
                Double latitude = optionalDouble();
                Double longitude = optionalDouble();
                Double battery = optionalDouble();
                Map<String, String> attributes = new HashMap<>();
                for (long n = decoder.readMapStart(); n != 0; n = decoder.mapNext()) {
                    for (long i = 0; i < n; i++) {
                        attributes.put(decoder.readString(), decoder.readString());
                    }
                }
                context = new Context(latitude, longitude, battery, attributes);
            }
            return new AppMessage(messageId, mnId, gatewayId, channel, payload, context, decoder.readLong(),
                    optionalLong(), string(), bytes());
        }

        private String string() throws IOException {
            return decoder.readIndex() == 0 ? null : decoder.readString();
        }

        private byte[] bytes() throws IOException {
            if (decoder.readIndex() == 0) {
                return null;
            }
            int length = decoder.readInt();
            byte[] value = new byte[length];
            decoder.readFixed(value);
            return value;
        }

        private Long optionalLong() throws IOException {
            return decoder.readIndex() == 0 ? null : decoder.readLong();
        }

        private Double optionalDouble() throws IOException {
            return decoder.readIndex() == 0 ? null : decoder.readDouble();
        }
    }
}
