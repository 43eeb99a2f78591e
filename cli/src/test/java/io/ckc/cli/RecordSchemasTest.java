package io.ckc.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.ckc.protocol.kafka.Json;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.BalanceRound;
import io.ckc.protocol.records.Broadcast;
import io.ckc.protocol.records.ConnectionReport;
import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GatewayEndpoints;
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
import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class RecordSchemasTest {

    private static final Path COMMITTED = Path.of("..").resolve(RecordSchemas.DIRECTORY);
    private static final String NODE = UUID.randomUUID().toString();
    private static final Context CONTEXT = new Context(-22.9, -43.2, 0.8, Map.of("zone", "a"));
    private static final Unicast UNICAST = new Unicast(UUID.randomUUID().toString(), "app", NODE, new byte[] {1, 2},
            60_000L, 1L, true);
    private static final List<Endpoint> ENDPOINTS = List.of(new Endpoint(Endpoint.UDP, "10.0.0.1", 5000));

    /** One record of every topic, as CKC or an application would write it. */
    private static final Map<Class<?>, List<Object>> SAMPLES = Map.ofEntries(
            Map.entry(AppMessage.class, List.of(new AppMessage(UUID.randomUUID().toString(), NODE, "gw-1", "echo",
                    new byte[] {7}, CONTEXT, 1L), new AppMessage("m", NODE, "gw-1", "echo", new byte[0], null, 1L))),
            Map.entry(Unicast.class, List.of(UNICAST, Unicast.of("m", "app", NODE, new byte[0]))),
            Map.entry(Groupcast.class, List.of(new Groupcast("g", "app", "zones/a", new byte[] {1}, null, 1L, false))),
            Map.entry(Broadcast.class, List.of(new Broadcast("b", "app", new byte[] {1}, 5_000L, 1L))),
            Map.entry(Receipt.class, List.of(Receipt.of(UNICAST, Receipt.Outcome.EXPIRED, null, "ttl", 2L))),
            Map.entry(ReceiptBatch.class, List.of(new ReceiptBatch("gw-1", List.of(
                    Receipt.of(UNICAST, Receipt.Outcome.DELIVERED, "gw-1", null, 2L))))),
            Map.entry(ContextReport.class, List.of(new ContextReport(NODE, "gw-1", 1L, CONTEXT))),
            Map.entry(MnEvent.class, List.of(MnEvent.connected(NODE, "gw-1", 3L, 1L))),
            Map.entry(GroupAdvertisement.class, List.of(new GroupAdvertisement("zones", NODE, List.of("a"), 1L, null))),
            Map.entry(DeadLetter.class, List.of(new DeadLetter("delivery", "ckc.to-mn", 0, 17L, "bad", null,
                    "{".getBytes(StandardCharsets.UTF_8), 1L))),
            Map.entry(UnsentMessage.class, List.of(new UnsentMessage(UNICAST, "gw-1", 3L,
                    UnsentMessage.Reason.CONNECTION_BROKEN, 1L))),
            Map.entry(GatewayCommand.class, List.of(new GatewayCommand.Deliver(UNICAST, 3L, null),
                    new GatewayCommand.Handover(NODE, new GatewayEndpoints("gw-2", ENDPOINTS), 4L),
                    new GatewayCommand.ConfigurePing(1_000, 500))),
            Map.entry(HelloPoA.class, List.of(new HelloPoA("gw-1", ENDPOINTS, 1L))),
            Map.entry(LoadReport.class, List.of(new LoadReport("gw-1", 1L, 1_000L, 2, 0.1, 0.2, 0.3, 1L << 30, 0.5,
                    1L << 28, 0.6, 10))),
            Map.entry(ConnectionReport.class, List.of(new ConnectionReport("gw-1", 1L, 500L, 0, 1, 1, Map.of(NODE, 9L),
                    List.of(NODE)), new ConnectionReport("gw-1", 1L, 500L, 0, 1, 1, Map.of(NODE, 9L), List.of(),
                    40_000))),
            Map.entry(ConnectionStatistics.class, List.of(new ConnectionStatistics("gw-1", 1L, 500L, 1, 1, 0, 0.0,
                    null, null, null, null, null, null, true))),
            Map.entry(GatewayList.class, List.of(new GatewayList(1L, 1L, "load",
                    List.of(new GatewayList.Entry("gw-1", ENDPOINTS, 0.3, 10))))),
            Map.entry(BalanceRound.class, List.of(new BalanceRound(1L, 1L, "load", 10,
                    List.of(new BalanceRound.Share("gw-1", 0.3, 10, 5, 5, 0, false)), 5, 0, "rebalancing"))),
            Map.entry(PoaControl.class, List.of(new PoaControl("gw-1", true, 1L))));

    private static Schema schemaOf(RecordSchemas.Topic topic) throws Exception {
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(Files.readString(COMMITTED.resolve(topic.file())));
    }

    @Test
    void theCommittedSchemasAreTheOnesRenderedFromTheRecords() throws Exception {
        Map<String, String> rendered = RecordSchemas.render();
        for (Map.Entry<String, String> file : rendered.entrySet()) {
            assertThat(Files.readString(COMMITTED.resolve(file.getKey()), StandardCharsets.UTF_8))
                    .as("%s is generated: run ./ckc docs generate", file.getKey()).isEqualTo(file.getValue());
        }
        try (var committed = Files.list(COMMITTED)) {
            assertThat(committed.map(p -> p.getFileName().toString())).as("no file left over")
                    .containsExactlyInAnyOrderElementsOf(rendered.keySet());
        }
    }

    @Test
    void everyRecordCkcOrAnApplicationWritesMatchesItsSchemaAndLosingARequiredFieldDoesNot() throws Exception {
        ObjectMapper mapper = Json.newMapper();
        for (RecordSchemas.Topic topic : RecordSchemas.TOPICS) {
            Schema schema = schemaOf(topic);
            assertThat(SAMPLES).as("a sample of %s", topic.record().getSimpleName()).containsKey(topic.record());
            for (Object sample : SAMPLES.get(topic.record())) {
                JsonNode written = mapper.readTree(Json.write(mapper, sample));
                assertThat(schema.validate(written)).as("%s as written", sample).isEmpty();
                for (String field : RecordSchemas.requiredFields(topic.record())) {
                    ObjectNode without = written.deepCopy();
                    without.remove(field);
                    List<Error> errors = schema.validate(without);
                    assertThat(errors).as("%s without %s", topic.record().getSimpleName(), field).isNotEmpty();
                    without.putNull(field);
                    assertThat(schema.validate(without)).as("%s with a null %s", topic.record().getSimpleName(),
                            field).isNotEmpty();
                }
            }
        }
    }

    @Test
    void everyFieldOfTheRecordsApplicationsUseIsDescribed() {
        List<String> missing = new ArrayList<>();
        for (RecordSchemas.Topic topic : RecordSchemas.TOPICS) {
            if (topic.forApplications()) {
                collectUndescribed(topic.record(), missing);
            }
        }
        assertThat(missing).as("fields without a description in RecordSchemas.FIELDS").isEmpty();
        assertThat(RecordSchemas.REQUIRED).allSatisfy(required ->
                assertThat(RecordSchemas.TOPICS.stream().anyMatch(t -> required.startsWith(t.record().getSimpleName()
                        + ".") && hasComponent(t.record(), required.substring(required.indexOf('.') + 1))))
                        .as("%s names a field of a record on a topic", required).isTrue());
    }

    private static void collectUndescribed(Class<?> record, List<String> missing) {
        for (RecordComponent component : record.getRecordComponents()) {
            String key = record.getSimpleName() + "." + component.getName();
            if (!RecordSchemas.FIELDS.containsKey(key)) {
                missing.add(key);
            }
            if (component.getType().isRecord()) {
                collectUndescribed(component.getType(), missing);
            }
        }
    }

    private static boolean hasComponent(Class<?> record, String name) {
        for (RecordComponent component : record.getRecordComponents()) {
            if (component.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }
}
