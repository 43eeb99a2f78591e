package io.ckc.jobs.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code ./ckc sql try}: a short-form rule run on sample context reports (one ContextReport in JSON
 * per line, as the gateways write them to {@code ckc.context}) in a local Flink environment, no Kafka
 * and no cluster. The samples stand in for the {@code ckc.context} topic (a report's time is its
 * {@code timestamp}, else one second per line); the rule runs exactly as it would on the stack, and
 * the records it would write to {@code ckc.groups} are applied as upserts to give each node's groups.
 */
public final class RuleTrial {

    /** The rule's last advertisement of one node: its groups, and for a windowed rule their lease. */
    public record Groups(String mnId, TreeSet<String> groups, Long expiresAt) {
    }

    /**
     * What a trial gave: each node's groups after the samples, by node id (nodes the rule never wrote are
     * absent), and how many samples are not context reports (dead letters on the stack).
     */
    public record Outcome(Map<String, Groups> groups, int malformed) {
    }

    private RuleTrial() {
    }

    public static Outcome run(String tables, GroupingRule rule, List<String> samples) throws Exception {
        if (!rule.isShort()) {
            throw rule.error("try runs short-form rules (one SELECT); a full-form rule's INSERTs write to Kafka");
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(); // local from the command line
        env.setParallelism(1);
        StreamTableEnvironment tableEnv = StreamTableEnvironment.create(env);
        ObjectMapper mapper = new ObjectMapper();
        List<Row> rows = new ArrayList<>();
        int malformed = 0;
        for (int i = 0; i < samples.size(); i++) {
            String line = samples.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            long ts = (i + 1) * 1000L;
            try {
                JsonNode report = mapper.readTree(line);
                ts = report.path("timestamp").asLong(ts);
                malformed += report.path("mnId").isTextual() ? 0 : 1;
            } catch (Exception e) {
                malformed++; // not JSON: the tables make it a dead letter, as on the stack
            }
            rows.add(Row.of(line, 0, (long) i, ts));
        }
        DataStream<Row> reports = env.fromData(rows).returns(Types.ROW_NAMED(
                new String[] {"value", "partition", "offset", "millis"}, Types.STRING, Types.INT, Types.LONG, Types.LONG));
        // The samples in place of the Kafka table: a temporary view shadows the tables' CREATE TABLE of it.
        tableEnv.createTemporaryView("context_topic", tableEnv.fromDataStream(reports, Schema.newBuilder()
                .columnByExpression("ts", "TO_TIMESTAMP_LTZ(millis, 3)")
                .watermark("ts", "ts - INTERVAL '5' SECOND").build()));
        SqlRunnerJob.run(tableEnv, tables);
        rule.applySets(tableEnv);
        TableResult result = tableEnv.executeSql(rule.advertisements(tableEnv));
        Map<String, Groups> byNode = new TreeMap<>();
        try (CloseableIterator<Row> changes = result.collect()) {
            while (changes.hasNext()) {
                Row row = changes.next();
                String mnId = (String) row.getField(2);
                if (row.getKind() == RowKind.UPDATE_BEFORE) {
                    continue; // an upsert sink writes only the new value
                }
                if (row.getKind() == RowKind.DELETE) {
                    byNode.remove(mnId);
                    continue;
                }
                TreeSet<String> groups = new TreeSet<>();
                Object[] array = (Object[]) row.getField(3);
                if (array != null) {
                    for (Object group : array) {
                        groups.add(String.valueOf(group));
                    }
                }
                byNode.put(mnId, new Groups(mnId, groups, (Long) row.getField(5)));
            }
        }
        return new Outcome(byNode, malformed);
    }
}
