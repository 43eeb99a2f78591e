package io.ckc.protocol.kafka;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.UnknownFieldSet;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.ReceiptBatch;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BinaryRecordsTest {

    private static final byte[] PAYLOAD = "héllo".getBytes(StandardCharsets.UTF_8);

    private final RecordFormat format = new RecordFormat();

    static final Unicast FULL_UNICAST = new Unicast("m-1", "app", "node-1", PAYLOAD, 30_000L, 1_700_000_000_123L, true,
            "grid/cell-1", "reply/here", new byte[] {1, 2, 3});
    static final AppMessage FULL_APP_MESSAGE = new AppMessage("m-2", "node-1", "gw-1", "echo", PAYLOAD,
            new Context(-22.9, -43.2, 0.75, Map.of("speed", "12", "mode", "walk")), 1_700_000_000_456L, 60_000L,
            "reply/here", new byte[] {9});
    static final GatewayEndpoints TARGET = new GatewayEndpoints("gw-2",
            List.of(new Endpoint(Endpoint.UDP, "10.0.0.2", 5684), new Endpoint(Endpoint.MQTT, "10.0.0.2", 1884)));

    /** Every record with each of its fields set, and with as few as its type allows. */
    static List<Object> everyRecord() {
        Unicast bare = new Unicast(null, null, null, null, null, 0, false);
        return List.of(FULL_APP_MESSAGE,
                new AppMessage("m-3", "node-2", "gw-1", "echo", new byte[0], null, 5),
                new AppMessage(null, null, null, null, null, null, 0),
                new AppMessage("m-4", "node-2", "gw-1", "echo", PAYLOAD, new Context(null, null, null, null), -1),
                FULL_UNICAST, bare, Unicast.of("m-5", "app", "node-3", new byte[0]),
                new Receipt("m-1", "app", "node-1", Receipt.Outcome.DELIVERED, "gw-1", "acknowledged", 42),
                new Receipt("m-1", "app", "node-1", Receipt.Outcome.DROPPED, null, null, 0),
                new Receipt(null, null, null, null, null, null, 0),
                new ReceiptBatch("gw-1", List.of(
                        new Receipt("m-1", "app", "node-1", Receipt.Outcome.DELIVERED, "gw-1", null, 42),
                        new Receipt("m-2", "echo", "node-2", Receipt.Outcome.DROPPED, "gw-1", "too large", 43))),
                new ReceiptBatch("gw-1", List.of()),
                new UnsentMessage(FULL_UNICAST, "gw-1", 7, UnsentMessage.Reason.CONNECTION_BROKEN, 99, true, true),
                new UnsentMessage(bare, "gw-1", 0, UnsentMessage.Reason.NOT_CONNECTED, 1),
                new UnsentMessage(null, null, 0, null, 0),
                new GatewayCommand.Deliver(FULL_UNICAST, 3, 1_700_000_030_123L),
                new GatewayCommand.Deliver(bare, 0, null),
                new GatewayCommand.Handover("node-1", TARGET, 12),
                new GatewayCommand.Handover("node-1", new GatewayEndpoints("gw-3", List.of()), 0),
                new GatewayCommand.ConfigurePing(10_000, 2_000));
    }

    private static Class<?> topType(Object record) {
        return record instanceof GatewayCommand ? GatewayCommand.class : record.getClass();
    }

    @Test
    void everyRecordComesBackAsItWasWritten() throws IOException {
        for (Object record : everyRecord()) {
            byte[] bytes = format.write(record);
            assertThat(RecordFormat.isBinary(bytes)).as("%s is written in binary", record).isTrue();
            assertThat(format.read(bytes, topType(record))).as("read back").isEqualTo(record);
        }
    }

    @Test
    void theJsonOfBeforeTheUpgradeIsStillRead() throws IOException {
        var json = Json.newMapper();
        for (Object record : everyRecord()) {
            byte[] old = Json.write(json, record);
            assertThat(RecordFormat.isBinary(old)).isFalse();
            assertThat(format.read(old, topType(record))).as("%s from its JSON", record).isEqualTo(record);
        }
    }

    @Test
    void theBinaryFormIsSmallerThanTheJson() {
        var json = Json.newMapper();
        for (Object record : List.of(FULL_APP_MESSAGE, FULL_UNICAST, new GatewayCommand.Deliver(FULL_UNICAST, 3, 9L))) {
            assertThat(format.write(record).length).as("%s", record).isLessThan(Json.write(json, record).length / 2);
        }
    }

    @Test
    void aSingleReceiptOfAGatewayBeforeBatchingReadsAsABatchOfOne() throws IOException {
        Receipt single = new Receipt("m-1", "app", "node-1", Receipt.Outcome.DELIVERED, "gw-1", null, 42);

        assertThat(format.read(format.write(single), ReceiptBatch.class)).isEqualTo(new ReceiptBatch(null, List.of(single)));
    }

    @Test
    void fieldsItDoesNotKnowAreSkipped() throws IOException {
        for (Object record : everyRecord()) {
            byte[] known = format.write(record);
            ByteArrayOutputStream newer = new ByteArrayOutputStream();
            newer.write(known, 0, known.length);
            CodedOutputStream extra = CodedOutputStream.newInstance(newer);
            extra.writeString(99, "a field of a later version");
            extra.writeInt64(100, 12345);
            extra.writeFixed64(101, 7);
            extra.flush();
            assertThat(format.read(newer.toByteArray(), topType(record))).as("%s with fields added", record)
                    .isEqualTo(record);
        }
    }

    @Test
    void aBadRecordRaisesAnIoExceptionSayingWhatIsWrong() {
        byte[] unicast = format.write(FULL_UNICAST);
        assertThatThrownBy(() -> format.read(Arrays.copyOf(unicast, unicast.length - 3), Unicast.class))
                .isInstanceOf(IOException.class);
        byte[] badOutcome = {BinaryRecords.FORMAT, 4 << 3, 9};
        assertThatThrownBy(() -> format.read(badOutcome, Receipt.class)).isInstanceOf(IOException.class)
                .hasMessageContaining("unknown outcome 9");
        byte[] noCommand = {BinaryRecords.FORMAT};
        assertThatThrownBy(() -> format.read(noCommand, GatewayCommand.class)).isInstanceOf(IOException.class)
                .hasMessageContaining("names no command");
        byte[] zeroPing = format.write(new GatewayCommand.ConfigurePing(10, 10));
        zeroPing[zeroPing.length - 1] = 0; // the window 0: not a valid setting
        assertThatThrownBy(() -> format.read(zeroPing, GatewayCommand.class)).isInstanceOf(IOException.class)
                .hasMessageContaining("not a valid GatewayCommand");
        assertThatThrownBy(() -> format.read(format.write(FULL_UNICAST), Context.class))
                .isInstanceOf(IOException.class).hasMessageContaining("binary record where Context");
        assertThatThrownBy(() -> format.read("{\"messageId\":".getBytes(StandardCharsets.UTF_8), Unicast.class))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> format.read(null, Unicast.class)).isInstanceOf(IOException.class);
    }

    @Test
    void otherRecordsStayJson() {
        byte[] written = format.write(Context.position(1, 2));
        assertThat(new String(written, StandardCharsets.UTF_8)).startsWith("{\"latitude\":1.0");
    }

    /**
     * The published schema and the codec name the same fields: each record with every field set is parsed as unknown
     * fields (protobuf-java's generic reader), and the field numbers and wire types found, nested messages too, are
     * exactly those {@code records.proto} declares for its message (a gateway command sets one of its three).
     */
    @Test
    void theCodecWritesTheFieldsOfRecordsProto() throws IOException {
        Map<String, Map<Integer, String>> proto = readProto();
        assertFields(proto, "AppMessage", format.write(FULL_APP_MESSAGE));
        assertFields(proto, "Unicast", format.write(FULL_UNICAST));
        assertFields(proto, "Receipt",
                format.write(new Receipt("m", "s", "r", Receipt.Outcome.EXPIRED, "gw", "late", 1)));
        assertFields(proto, "UnsentMessage",
                format.write(new UnsentMessage(FULL_UNICAST, "gw", 1, UnsentMessage.Reason.EXPIRED, 1, true, true)));
        assertFields(proto, "ReceiptBatch", format.write(new ReceiptBatch("gw",
                List.of(new Receipt("m", "s", "r", Receipt.Outcome.DELIVERED, "gw", "ok", 1)))));
        Map<Integer, UnknownFieldSet.Field> commands = new TreeMap<>();
        for (GatewayCommand command : List.of(new GatewayCommand.Deliver(FULL_UNICAST, 1, 2L),
                new GatewayCommand.Handover("n", TARGET, 1), new GatewayCommand.ConfigurePing(2, 1))) {
            UnknownFieldSet fields = parse(format.write(command));
            commands.putAll(fields.asMap());
            assertNested(proto, "GatewayCommand", fields);
        }
        assertThat(commands.keySet()).as("GatewayCommand's fields").isEqualTo(proto.get("GatewayCommand").keySet());
    }

    private static UnknownFieldSet parse(byte[] record) throws IOException {
        return UnknownFieldSet.parseFrom(Arrays.copyOfRange(record, 1, record.length));
    }

    private static void assertFields(Map<String, Map<Integer, String>> proto, String message, byte[] record)
            throws IOException {
        UnknownFieldSet fields = parse(record);
        assertThat(fields.asMap().keySet()).as("%s's fields", message).isEqualTo(proto.get(message).keySet());
        assertNested(proto, message, fields);
    }

    /** Each field found has its declared type's wire type; a nested message's fields are checked in turn. */
    private static void assertNested(Map<String, Map<Integer, String>> proto, String message, UnknownFieldSet fields)
            throws IOException {
        for (Map.Entry<Integer, UnknownFieldSet.Field> found : fields.asMap().entrySet()) {
            String type = proto.get(message).get(found.getKey());
            assertThat(type).as("%s field %d is declared", message, found.getKey()).isNotNull();
            UnknownFieldSet.Field field = found.getValue();
            switch (type) {
                case "int64", "int32", "bool", "Outcome", "Reason" ->
                        assertThat(field.getVarintList()).as("%s.%d", message, found.getKey()).isNotEmpty();
                case "double" -> assertThat(field.getFixed64List()).as("%s.%d", message, found.getKey()).isNotEmpty();
                case "string", "bytes", "map<string,string>" ->
                        assertThat(field.getLengthDelimitedList()).as("%s.%d", message, found.getKey()).isNotEmpty();
                default -> {
                    assertThat(proto).as("message type %s", type).containsKey(type);
                    for (var nested : field.getLengthDelimitedList()) {
                        UnknownFieldSet inner = UnknownFieldSet.parseFrom(nested);
                        assertThat(inner.asMap().keySet()).as("%s's fields", type).isEqualTo(proto.get(type).keySet());
                        assertNested(proto, type, inner);
                    }
                }
            }
        }
    }

    /** records.proto as message name to field number to type: enough of the language for this one file. */
    private static Map<String, Map<Integer, String>> readProto() throws IOException {
        String text;
        try (InputStream in = BinaryRecords.class.getResourceAsStream("records.proto")) {
            assertThat(in).as("records.proto beside BinaryRecords").isNotNull();
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Map<String, Map<Integer, String>> messages = new HashMap<>();
        Pattern message = Pattern.compile("(?m)^message (\\w+) \\{");
        Pattern field = Pattern.compile("(?m)^\\s+(?:optional |repeated )?([\\w<>, ]+?) (\\w+) = (\\d+);");
        Matcher m = message.matcher(text);
        while (m.find()) {
            int end = text.indexOf("\n}", m.end());
            Map<Integer, String> fields = new HashMap<>();
            Matcher f = field.matcher(text.substring(m.end(), end));
            while (f.find()) {
                if (!Character.isUpperCase(f.group(2).charAt(0))) { // enum constants are UPPER_CASE = n
                    fields.put(Integer.parseInt(f.group(3)), f.group(1).replace(" ", ""));
                }
            }
            messages.put(m.group(1), fields);
        }
        assertThat(messages).containsKeys("AppMessage", "Context", "Unicast", "Receipt", "ReceiptBatch", "UnsentMessage",
                "GatewayCommand", "Deliver", "Handover", "GatewayEndpoints", "Endpoint", "ConfigurePing");
        return messages;
    }
}
