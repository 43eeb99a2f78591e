package io.ckc.jobs.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.ckc.jobs.delivery.functions.ParseDeliveryInput;
import io.ckc.jobs.io.RecordParser;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.kafka.Json;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The schemas published under {@code docs/schemas/} say what the delivery job accepts: for every field
 * of a valid record, the record without it, or with null there, is refused by the schema exactly when
 * the job sends it to the dead letters.
 */
class PublishedSchemasTest {

    private static final Path SCHEMAS = Path.of("..", "docs", "schemas");
    private static final String NODE = UUID.randomUUID().toString();
    private static final Unicast UNICAST = new Unicast("m1", "app", NODE, new byte[] {1}, 60_000L, 1L, true);

    private record Case(String topic, Object record, String schemaFile) {
    }

    private static final List<Case> CASES = List.of(
            new Case(Topics.DEFAULT.toMn(), UNICAST, "Unicast.schema.json"),
            new Case(Topics.DEFAULT.groupcast(), new Groupcast("g1", "app", "zones/a", new byte[] {1}, 5_000L, 1L, false),
                    "Groupcast.schema.json"),
            new Case(Topics.DEFAULT.mnEvents(), MnEvent.connected(NODE, "gw-1", 3L, 1L), "MnEvent.schema.json"),
            new Case(Topics.DEFAULT.unsent(), new UnsentMessage(UNICAST, "gw-1", 3L,
                    UnsentMessage.Reason.NOT_CONNECTED, 1L), "UnsentMessage.schema.json"),
            new Case(Topics.DEFAULT.groups(), new GroupAdvertisement("zones", NODE, List.of("a"), 1L, null),
                    "GroupAdvertisement.schema.json"));

    @Test
    void theDeliveryJobRefusesARecordExactlyWhenItsPublishedSchemaDoes() throws Exception {
        ObjectMapper mapper = Json.newMapper();
        List<String> disagreements = new ArrayList<>();
        int tried = 0;
        for (Case c : CASES) {
            Schema schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                    .getSchema(Files.readString(SCHEMAS.resolve(c.schemaFile())));
            ObjectNode valid = (ObjectNode) mapper.readTree(Json.write(mapper, c.record()));
            assertThat(deadLettered(c.topic(), valid)).as("%s as written", c.record()).isFalse();
            assertThat(schema.validate(valid)).as("%s as written", c.record()).isEmpty();
            List<String> fields = new ArrayList<>();
            valid.fieldNames().forEachRemaining(fields::add);
            for (String field : fields) {
                for (boolean asNull : List.of(false, true)) {
                    ObjectNode changed = valid.deepCopy();
                    if (asNull) {
                        changed.putNull(field);
                    } else {
                        changed.remove(field);
                    }
                    boolean schemaRefuses = !schema.validate(changed).isEmpty();
                    boolean jobRefuses = deadLettered(c.topic(), changed);
                    tried++;
                    if (schemaRefuses != jobRefuses) {
                        disagreements.add(c.schemaFile() + " " + (asNull ? "null " : "without ") + field
                                + ": schema " + (schemaRefuses ? "refuses" : "accepts") + ", job "
                                + (jobRefuses ? "refuses" : "accepts"));
                    }
                }
            }
        }
        assertThat(tried).isGreaterThan(40);
        assertThat(disagreements).isEmpty();
    }

    private static boolean deadLettered(String topic, JsonNode value) throws Exception {
        byte[] bytes = value.toString().getBytes(StandardCharsets.UTF_8);
        try (OneInputStreamOperatorTestHarness<RawRecord, DeliveryInput> harness =
                     new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(new ParseDeliveryInput(Topics.DEFAULT)))) {
            harness.open();
            harness.processElement(new RawRecord(topic, 0, 0, NODE.getBytes(StandardCharsets.UTF_8), bytes), 0);
            var deadLetters = harness.getSideOutput(RecordParser.DEAD_LETTERS);
            return deadLetters != null && !deadLetters.isEmpty();
        }
    }
}
