package io.ckc.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.victools.jsonschema.generator.CustomDefinition;
import com.github.victools.jsonschema.generator.FieldScope;
import com.github.victools.jsonschema.generator.OptionPreset;
import com.github.victools.jsonschema.generator.SchemaGenerator;
import com.github.victools.jsonschema.generator.SchemaGeneratorConfigBuilder;
import com.github.victools.jsonschema.generator.SchemaVersion;
import com.github.victools.jsonschema.module.jackson.JacksonModule;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.BalanceRound;
import io.ckc.protocol.records.Broadcast;
import io.ckc.protocol.records.ConnectionReport;
import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GatewayList;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.PoaControl;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.ReceiptBatch;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The published schema of every CKC Kafka record: one JSON Schema (draft 2020-12) per record type
 * under {@code docs/schemas/}, generated from the record classes themselves (victools
 * jsonschema-generator with its Jackson module, so the schema follows what Jackson writes), and an
 * index page naming each topic, its key, who writes and who reads it. The field descriptions and the
 * required fields live here, beside the catalog of topics; {@code ./ckc docs check} and
 * {@code RecordSchemasTest} fail while the committed files differ from what this renders.
 */
public final class RecordSchemas {

    public static final Path DIRECTORY = Path.of("docs", "schemas");

    /** One topic: its name (with the default prefixes), its key, its record, and who writes and reads it. */
    public record Topic(String name, String key, Class<?> record, String writer, String reader, boolean forApplications,
                        String about) {

        /** The schema's file name under {@link #DIRECTORY}. */
        public String file() {
            return record.getSimpleName() + ".schema.json";
        }
    }

    public static final List<Topic> TOPICS = List.of(
            new Topic("app.<channel>", "the node id", AppMessage.class, "gateways", "applications", true,
                    "A message from a mobile node to the application of one channel."),
            new Topic("ckc.to-mn", "the recipient node id", Unicast.class, "applications", "the delivery job", true,
                    "A message for one mobile node: delivered at least once, in order, while its TTL lasts."),
            new Topic("ckc.groupcast", "the group", Groupcast.class, "applications, gateways", "the delivery job", true,
                    "A message for every current member of one group; each gets it once, with this message id."),
            new Topic("ckc.broadcast", "none", Broadcast.class, "applications", "every gateway", true,
                    "A message for every mobile node connected when it arrives."),
            new Topic("ckc.receipts", "the sender", Receipt.class, "the delivery job", "applications", true,
                    "What became of a message whose sender asked for a receipt. At least once: read them by message id."),
            new Topic("ckc.context", "the node id", ContextReport.class, "gateways", "group definers, applications",
                    true, "A node's context when it changes, and at least every CKC_CONTEXT_REFRESH_MS."),
            new Topic("ckc.mn.events", "the node id", MnEvent.class, "gateways, the PoA manager",
                    "the delivery job, applications", true,
                    "A node connected to or disconnected from a gateway, or its session ended with a gateway that stopped reporting."),
            new Topic("ckc.groups", "`<definerId>/<mnId>`", GroupAdvertisement.class, "group definers (jobs, SQL rules)",
                    "the delivery job", true,
                    "The groups one definer puts a node in; compacted, the latest record per key counts, a deleted "
                            + "key means no group."),
            new Topic("ckc.dead-letter", "none", DeadLetter.class, "gateways, jobs", "operators", true,
                    "A record that could not be processed, with the reason and where it came from."),
            new Topic("ckc.unsent", "the node id", UnsentMessage.class, "gateways", "the delivery job", false,
                    "A unicast a gateway could not hand to its node: the delivery job keeps it for the node (MTD)."),
            new Topic("ckc.delivered", "the gateway id", ReceiptBatch.class, "gateways", "the delivery job", false,
                    "The receipts of the unicasts one gateway event loop settled in one pass: DELIVERED (the node "
                            + "acknowledged it) or DROPPED (the gateway can never deliver it). The delivery job splits "
                            + "the batch, stops holding each message and passes its receipt on to ckc.receipts if the "
                            + "sender asked; a single Receipt is read as a batch of one."),
            new Topic("ckc.gw.<gatewayId>", "the node id (the gateway id for settings)", GatewayCommand.class,
                    "the delivery job, the PoA manager", "that gateway", false,
                    "A command for one gateway: deliver a unicast, hand a node over, or change the ping window."),
            new Topic("ckc.gw.hello", "the gateway id", HelloPoA.class, "gateways", "the PoA manager", false,
                    "A gateway announcing itself: one endpoint per protocol it serves."),
            new Topic("ckc.gw.load", "the gateway id", LoadReport.class, "gateways", "the PoA manager", false,
                    "A gateway's resource use every report period; also its heartbeat."),
            new Topic("ckc.gw.connections", "the gateway id", ConnectionReport.class, "gateways", "the PoA manager",
                    false, "What one ping window saw, in parts of at most CKC_REPORT_CHUNK nodes."),
            new Topic("ckc.gw.stats", "the gateway id", ConnectionStatistics.class, "the PoA manager", "dashboards",
                    false, "Latency statistics of one gateway's ping window (paper section 5.4)."),
            new Topic("ckc.gw.list", "`gateways`", GatewayList.class, "the PoA manager", "gateways, nodes", false,
                    "The active gateways, best ranked first; compacted."),
            new Topic("ckc.gw.rounds", "the round number", BalanceRound.class, "the PoA manager", "dashboards, perf", false,
                    "One load-balancing round: scores, ideal counts and the handovers ordered."),
            new Topic("ckc.poa.control", "the gateway id", PoaControl.class, "operators (./ckc drain)",
                    "the PoA manager", false, "Drain a gateway, or take it back; compacted."));

    /**
     * What each field of the records applications read or write means, by {@code Record.field}. A field
     * of those records without an entry here fails {@code RecordSchemasTest}.
     */
    static final Map<String, String> FIELDS = Map.ofEntries(
            Map.entry("AppMessage.messageId", "The node's id for this message (a UUID); a retransmission keeps it."),
            Map.entry("AppMessage.mnId", "The node that sent it (a UUID)."),
            Map.entry("AppMessage.gatewayId", "The gateway it came through."),
            Map.entry("AppMessage.channel", "The channel, without the topic prefix."),
            Map.entry("AppMessage.payload", "The message's bytes."),
            Map.entry("AppMessage.context", "The node's context sent with the message, or null."),
            Map.entry("AppMessage.receivedAt", "When the gateway received it, epoch ms."),
            Map.entry("AppMessage.ttlMs", "How long after receivedAt the node wants it handled, ms (an MQTT 5 "
                    + "device's Message Expiry Interval), or null for no limit."),
            Map.entry("AppMessage.replyTo", "Where the node wants the answer (an MQTT 5 Response Topic): copy it to "
                    + "the answer's replyTo. Null: its inbox."),
            Map.entry("AppMessage.correlation", "What the node wants back with the answer (MQTT 5 Correlation Data): "
                    + "copy it to the answer's correlation. Null: nothing."),
            Map.entry("Context.latitude", "Degrees, or null."),
            Map.entry("Context.longitude", "Degrees, or null."),
            Map.entry("Context.battery", "Share of a full battery in [0, 1], or null."),
            Map.entry("Context.attributes", "Free-form attributes; empty when there are none."),
            Map.entry("Unicast.messageId", "The sender's id for the message: a node drops a second message with the "
                    + "same id, so derive an answer's id from the request's."),
            Map.entry("Unicast.sender", "The application's name (receipts come back keyed by it), or a node id."),
            Map.entry("Unicast.recipient", "The node (a UUID)."),
            Map.entry("Unicast.payload", "The message's bytes."),
            Map.entry("Unicast.ttlMs", "How long after createdAt it may still be delivered, ms; null: the delivery "
                    + "job's default (--mtd-default-ttl-ms, 5 min)."),
            Map.entry("Unicast.createdAt", "When the sender created it, epoch ms; the TTL counts from it."),
            Map.entry("Unicast.receipt", "True: a receipt on ckc.receipts when it is delivered, expires or is dropped."),
            Map.entry("Unicast.group", "The group it went to, <definerId>/<name>, or * for a broadcast, so a node "
                    + "may read it on that group's topic; null (the usual) for a message to this node alone."),
            Map.entry("Unicast.replyTo", "For an answer: the request's replyTo, the node's topic for it; null: its "
                    + "inbox."),
            Map.entry("Unicast.correlation", "For an answer: the request's correlation data, bytes, or null."),
            Map.entry("Groupcast.messageId", "The sender's id for the message; every member gets it with this id."),
            Map.entry("Groupcast.sender", "The application's name, or the node id when a node sent it."),
            Map.entry("Groupcast.group", "<definerId>/<name>, as the group definers name groups."),
            Map.entry("Groupcast.payload", "The message's bytes."),
            Map.entry("Groupcast.ttlMs", "How long after createdAt it may still be delivered, ms; null: the default."),
            Map.entry("Groupcast.createdAt", "When the sender created it, epoch ms."),
            Map.entry("Groupcast.receipt", "True: one receipt per member on ckc.receipts."),
            Map.entry("Broadcast.messageId", "The sender's id for the message; every node gets it with this id."),
            Map.entry("Broadcast.sender", "The application's name."),
            Map.entry("Broadcast.payload", "The message's bytes."),
            Map.entry("Broadcast.ttlMs", "How long after createdAt it may still be delivered, ms; null: no deadline "
                    + "at the gateway."),
            Map.entry("Broadcast.createdAt", "When the sender created it, epoch ms."),
            Map.entry("ReceiptBatch.gatewayId", "The gateway that wrote it."),
            Map.entry("ReceiptBatch.receipts", "The receipts, in the order the gateway settled them."),
            Map.entry("Receipt.messageId", "The message this receipt is about."),
            Map.entry("Receipt.sender", "The message's sender: the record's key."),
            Map.entry("Receipt.recipient", "The node it was for."),
            Map.entry("Receipt.outcome", "DELIVERED (the node acknowledged it), EXPIRED (its TTL passed first) or "
                    + "DROPPED (the node's buffer was full, or the MTD is off and the node was away)."),
            Map.entry("Receipt.gatewayId", "The gateway that delivered it, or null."),
            Map.entry("Receipt.detail", "Why it was dropped or expired, for people; or null."),
            Map.entry("Receipt.timestamp", "When the outcome was known, epoch ms."),
            Map.entry("ContextReport.mnId", "The node (a UUID)."),
            Map.entry("ContextReport.gatewayId", "The gateway the node reported through."),
            Map.entry("ContextReport.timestamp", "When the gateway received it, epoch ms."),
            Map.entry("ContextReport.context", "The node's context."),
            Map.entry("MnEvent.type", "CONNECTED or DISCONNECTED (from the gateway), or GATEWAY_LOST (from the PoA "
                    + "manager: the gateway stopped reporting; the delivery job forgets the node's session there, if it opened before "
                    + "timestamp, unless the node connects again or the gateway delivers again)."),
            Map.entry("MnEvent.mnId", "The node (a UUID)."),
            Map.entry("MnEvent.gatewayId", "The gateway of the session."),
            Map.entry("MnEvent.epoch", "The session's epoch: grows with each new session of the node; a disconnect "
                    + "counts only for the (gateway, epoch) it names; 0 in GATEWAY_LOST."),
            Map.entry("MnEvent.timestamp", "When it happened, epoch ms, on the gateway's clock; in GATEWAY_LOST the "
                    + "gateway's last report."),
            Map.entry("GroupAdvertisement.definerId", "The definer: a job, a SQL rule or an application."),
            Map.entry("GroupAdvertisement.mnId", "The node (a UUID)."),
            Map.entry("GroupAdvertisement.groups", "The definer's groups the node is in, sorted; empty: none."),
            Map.entry("GroupAdvertisement.timestamp", "When the definer decided, epoch ms."),
            Map.entry("GroupAdvertisement.expiresAt", "When these memberships lapse unless renewed, epoch ms; null: "
                    + "until changed."),
            Map.entry("DeadLetter.source", "What refused it: a job's parser or a gateway."),
            Map.entry("DeadLetter.sourceTopic", "The topic it was read from."),
            Map.entry("DeadLetter.partition", "Its partition there."),
            Map.entry("DeadLetter.offset", "Its offset there."),
            Map.entry("DeadLetter.reason", "Why it could not be processed."),
            Map.entry("DeadLetter.key", "The record's key bytes, or null."),
            Map.entry("DeadLetter.value", "The record's value bytes, or null."),
            Map.entry("DeadLetter.timestamp", "When it was refused, epoch ms."));

    /**
     * The fields a reader cannot do without, besides numbers and booleans (which Jackson refuses to
     * leave out or set null): a record lacking one, or holding null there, is refused as a dead
     * letter. Every other field may be absent.
     */
    static final Set<String> REQUIRED = Set.of(
            "AppMessage.messageId", "AppMessage.mnId", "AppMessage.payload",
            "Unicast.messageId", "Unicast.sender", "Unicast.recipient", "Unicast.payload",
            "Groupcast.messageId", "Groupcast.sender", "Groupcast.group", "Groupcast.payload",
            "Broadcast.messageId", "Broadcast.sender", "Broadcast.payload",
            "ContextReport.mnId",
            "MnEvent.type", "MnEvent.mnId", "MnEvent.gatewayId",
            "GroupAdvertisement.definerId", "GroupAdvertisement.mnId",
            "UnsentMessage.unicast", "UnsentMessage.gatewayId",
            "HelloPoA.gatewayId", "HelloPoA.endpoints", "LoadReport.gatewayId", "ConnectionReport.gatewayId",
            "PoaControl.gatewayId");

    private RecordSchemas() {
    }

    static String key(FieldScope field) {
        return field.getDeclaringType().getErasedType().getSimpleName() + "." + field.getName();
    }

    /** Whether a record must carry the field: a primitive, or one in {@link #REQUIRED}. */
    static boolean required(Class<?> record, String field, Class<?> type) {
        return type.isPrimitive() || REQUIRED.contains(record.getSimpleName() + "." + field);
    }

    private static boolean required(FieldScope field) {
        return required(field.getDeclaringType().getErasedType(), field.getName(), field.getType().getErasedType());
    }

    /** The fields a record of this type must carry, in declaration order. */
    public static List<String> requiredFields(Class<?> record) {
        if (!record.isRecord()) {
            return List.of();
        }
        return Stream.of(record.getRecordComponents())
                .filter(c -> required(record, c.getName(), c.getType()))
                .map(RecordComponent::getName).toList();
    }

    private static SchemaGenerator generator() {
        SchemaGeneratorConfigBuilder config = new SchemaGeneratorConfigBuilder(SchemaVersion.DRAFT_2020_12,
                OptionPreset.PLAIN_JSON)
                .with(new JacksonModule()); // readers ignore unknown fields: no additionalProperties: false
        config.forTypesInGeneral().withPropertySorter((a, b) -> 0); // as the record declares them, as Jackson writes them
        config.forTypesInGeneral().withCustomDefinitionProvider((type, context) -> {
            if (type.getErasedType() != byte[].class) {
                return null;
            }
            ObjectNode bytes = context.getGeneratorConfig().createObjectNode()
                    .put("type", "string").put("contentEncoding", "base64");
            return new CustomDefinition(bytes, CustomDefinition.DefinitionType.INLINE,
                    CustomDefinition.AttributeInclusion.YES);
        });
        config.forFields()
                .withRequiredCheck(RecordSchemas::required)
                .withNullableCheck(field -> !required(field))
                .withDescriptionResolver(field -> FIELDS.get(key(field)));
        return new SchemaGenerator(config.build());
    }

    /** Each schema file's text by file name, and the index page under {@code README.md}. */
    public static Map<String, String> render() {
        SchemaGenerator generator = generator();
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Map<String, String> files = new LinkedHashMap<>();
        for (Topic topic : TOPICS) {
            ObjectNode schema = generator.generateSchema(topic.record());
            ObjectNode ordered = mapper.createObjectNode();
            ordered.put("$schema", schema.path("$schema").asText());
            ordered.put("title", topic.record().getSimpleName() + " on " + topic.name());
            ordered.put("description", topic.about() + " Key: " + topic.key().replace("`", "") + ".");
            schema.properties().forEach(field -> {
                if (!field.getKey().equals("$schema")) {
                    ordered.set(field.getKey(), field.getValue());
                }
            });
            try {
                files.put(topic.file(), mapper.writeValueAsString(ordered) + "\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        files.put("README.md", index(files));
        return files;
    }

    private static String index(Map<String, String> schemas) {
        StringBuilder page = new StringBuilder("""
                # Record schemas

                Generated by `./ckc docs generate` from the record classes (`io.ckc.protocol.records`) and
                `cli/.../RecordSchemas.java`; `./ckc docs check` and `RecordSchemasTest` fail while they differ.
                The records a message crosses on its round trip are written in **binary**: the byte `0x01`, then
                the record's message of
                [records.proto](../../protocol/src/main/resources/io/ckc/protocol/kafka/records.proto)
                in the Protocol Buffers wire format (read it with any protobuf library, or field by field as
                [the Python example](../../examples/python/shout.py) does).
                CKC reads their **JSON** too, on every topic: the records of before 2026-11-28, and what an
                application writes, so an application may write JSON where it does not want a protobuf library.
                Every other record is JSON in UTF-8. The column "CKC writes" says which form CKC's own writers use;
                it is not a requirement on yours: binary or JSON is read on every topic. In JSON bytes are base64 strings; times are epoch milliseconds
                everywhere. CKC writes every field (null where a schema allows it); a record you write may leave out
                any field its schema does not list as `required`: numbers and booleans are always required. Readers
                ignore fields they do not know, so fields may be added. Topic names are shown with the default
                prefixes (`CKC_TOPIC_PREFIX`, `CKC_APP_TOPIC_PREFIX`).

                """);
        for (boolean forApplications : List.of(true, false)) {
            page.append(forApplications ? "## Topics applications use\n\n" : "## Topics inside CKC\n\n");
            page.append("| topic | key | record | CKC writes | written by | read by | required fields |\n"
                    + "|---|---|---|---|---|---|---|\n");
            for (Topic topic : TOPICS) {
                if (topic.forApplications() != forApplications) {
                    continue;
                }
                String required = String.join(", ", requiredFields(topic.record()).stream()
                        .map(f -> "`" + f + "`").toList());
                page.append("| `").append(topic.name()).append("` | ").append(topic.key()).append(" | [")
                        .append(topic.record().getSimpleName()).append("](").append(topic.file()).append(") | ")
                        .append(RecordFormat.writesBinary(topic.record()) ? "binary (JSON read too)" : "JSON").append(" | ")
                        .append(topic.writer()).append(" | ").append(topic.reader()).append(" | ")
                        .append(required.isEmpty() ? "none" : required).append(" |\n");
            }
            page.append('\n');
        }
        return page.toString();
    }

    /** {@code generate} writes the files under {@code root}; {@code check} returns 1 while any differs. */
    public static int apply(String action, Path root) throws IOException {
        Path directory = root.resolve(DIRECTORY);
        Map<String, String> rendered = render();
        if (action.equals("generate")) {
            Files.createDirectories(directory);
            try (Stream<Path> old = Files.list(directory)) {
                for (Path file : old.toList()) {
                    if (!rendered.containsKey(file.getFileName().toString())) {
                        Files.delete(file);
                    }
                }
            }
            for (Map.Entry<String, String> file : rendered.entrySet()) {
                Files.writeString(directory.resolve(file.getKey()), file.getValue(), StandardCharsets.UTF_8);
            }
            System.out.println("wrote " + rendered.size() + " files to " + DIRECTORY);
            return 0;
        }
        int differing = 0;
        for (Map.Entry<String, String> file : rendered.entrySet()) {
            Path path = directory.resolve(file.getKey());
            if (!Files.exists(path) || !Files.readString(path, StandardCharsets.UTF_8).equals(file.getValue())) {
                System.err.println(DIRECTORY.resolve(file.getKey()) + " differs from the records: run ./ckc docs generate");
                differing++;
            }
        }
        return differing == 0 ? 0 : 1;
    }
}
