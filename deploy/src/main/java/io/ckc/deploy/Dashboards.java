package io.ckc.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * CKC's Grafana dashboards, declared once here and written as JSON to
 * {@code monitoring/grafana/dashboards/} (compose provisions them, Kubernetes gets them as a
 * ConfigMap). Every panel names its unit and axis; latencies are on log axes. {@link DashboardCheck}
 * runs each query against a live Prometheus.
 */
public final class Dashboards {

    /** One line of a panel: a PromQL query and its legend. */
    public record Query(String expr, String legend) {
    }

    /** A time-series panel. {@code unit} is Grafana's unit id; {@code axis} labels the y axis. */
    public record Panel(String title, String unit, String axis, boolean logAxis, List<Query> queries) {
    }

    public record Dashboard(String uid, String title, String description, List<Panel> panels) {
    }

    /** Per-second rate of a Flink counter, summed per job. */
    private static String flinkRate(String counter) {
        return "sum by (job_name) (rate(flink_taskmanager_job_task_operator_" + counter + "[1m]))";
    }

    private static String quantile(double q, String histogram, String by) {
        return "histogram_quantile(" + q + ", sum by (le, " + by + ") (rate(" + histogram + "_bucket[1m])))";
    }

    private static Panel rate(String title, String axis, Query... queries) {
        return new Panel(title, "suffix: /s", axis, false, List.of(queries));
    }

    private static Panel latency(String title, Query... queries) {
        return new Panel(title, "s", "latency (s, log)", true, List.of(queries));
    }

    public static final List<Dashboard> ALL = List.of(
            new Dashboard("ckc-gateways", "CKC gateways: sessions and traffic",
                    "Each edge gateway: connected mobile nodes, messages in and out, retransmissions, admissions, memory.",
                    List.of(
                            new Panel("Connected nodes", "short", "sessions", false, List.of(
                                    new Query("sum by (gateway) (ckc_gateway_sessions)", "{{gateway}}"))),
                            rate("Node messages to Kafka", "messages/s",
                                    new Query("sum by (gateway) (rate(ckc_gateway_messages_in_total[1m]))", "{{gateway}} in"),
                                    new Query("sum by (gateway) (rate(ckc_gateway_groupcasts_in_total[1m]))", "{{gateway}} groupcasts in")),
                            rate("Deliveries acknowledged by nodes", "messages/s",
                                    new Query("sum by (gateway) (rate(ckc_gateway_messages_out_total[1m]))", "{{gateway}}")),
                            rate("Retransmissions and late pongs", "datagrams/s",
                                    new Query("sum by (gateway) (rate(ckc_gateway_retransmissions_total[1m]))", "{{gateway}} retransmissions"),
                                    new Query("sum by (gateway) (rate(ckc_gateway_late_pongs_total[1m]))", "{{gateway}} late pongs")),
                            new Panel("Congestion windows over deliveries (UDP)", "short", "frames", true, List.of(
                                    new Query("sum by (gateway) (ckc_gateway_downlink_window_frames{frames=\"limit\"})",
                                            "{{gateway}} limit"),
                                    new Query("sum by (gateway) (ckc_gateway_downlink_window_frames{frames=\"in_flight\"})",
                                            "{{gateway}} in flight"))),
                            rate("Sessions opened and refused (BUSY)", "sessions/s",
                                    new Query("sum by (gateway) (rate(ckc_gateway_connects_total[1m]))", "{{gateway}} opened"),
                                    new Query("sum by (gateway) (rate(ckc_gateway_connects_refused_total[1m]))", "{{gateway}} refused")),
                            new Panel("Gateway heap in use", "bytes", "heap (bytes)", false, List.of(
                                    new Query("sum by (instance) (jvm_memory_used_bytes{area=\"heap\", job=~\".*gateway.*\"})", "{{instance}}"))))),
            new Dashboard("ckc-round-trips", "CKC round trips",
                    "Latency seen at the gateways: nodes' ping round trips (the paper's measure, the PoA manager's input) and Kafka writes a node's message waits for.",
                    List.of(
                            latency("Ping round trip, p50 and p99",
                                    new Query(quantile(0.5, "ckc_gateway_ping_round_trip_seconds", "gateway"), "{{gateway}} p50"),
                                    new Query(quantile(0.99, "ckc_gateway_ping_round_trip_seconds", "gateway"), "{{gateway}} p99")),
                            latency("Kafka write, p50 and p99",
                                    new Query(quantile(0.5, "ckc_gateway_kafka_write_seconds", "gateway"), "{{gateway}} p50"),
                                    new Query(quantile(0.99, "ckc_gateway_kafka_write_seconds", "gateway"), "{{gateway}} p99")),
                            latency("Mean ping round trip per gateway",
                                    new Query("sum by (gateway) (rate(ckc_gateway_ping_round_trip_seconds_sum[1m])) / "
                                            + "sum by (gateway) (rate(ckc_gateway_ping_round_trip_seconds_count[1m]))", "{{gateway}}")),
                            latency("Delivery age: how far Kafka and the jobs are behind (median per 100 ms)",
                                    new Query("max by (gateway) (ckc_gateway_delivery_age_seconds)", "{{gateway}}")),
                            new Panel("Uplink messages refused as BUSY (uplink admission)", "percentunit", "share refused", false, List.of(
                                    new Query("max by (gateway) (ckc_gateway_uplink_refuse_probability)", "{{gateway}}"))))),
            new Dashboard("ckc-mtd", "CKC message buffering for disconnected nodes (MTD)",
                    "The delivery job's pending messages: held until their node acknowledges them, sent again to its next session, buffered for disconnected nodes (MTD), expired at their TTL, dropped when a node's set is full.",
                    List.of(
                            rate("Buffered and replayed", "messages/s",
                                    new Query(flinkRate("mtdBuffered"), "buffered"),
                                    new Query(flinkRate("mtdReplayed"), "replayed")),
                            rate("Expired and dropped", "messages/s",
                                    new Query(flinkRate("mtdExpired"), "expired"),
                                    new Query(flinkRate("mtdDropped"), "dropped")),
                            rate("Routed to gateways and sent again", "messages/s",
                                    new Query(flinkRate("routed"), "routed"),
                                    new Query(flinkRate("acknowledged"), "acknowledged by nodes"),
                                    new Query(flinkRate("inFlightResent"), "in flight, sent to the next session"),
                                    new Query(flinkRate("reroutedUnsent"), "rerouted (unsent)")))),
            new Dashboard("ckc-poa-manager", "CKC PoA manager",
                    "Per-gateway statistics the PoA manager ranks gateways by (load and ping round trips), and what it ordered: handovers, ping reconfigurations.",
                    List.of(
                            new Panel("Load: connected nodes per gateway", "short", "sessions", false, List.of(
                                    new Query("sum by (gateway) (ckc_gateway_sessions)", "{{gateway}}"))),
                            latency("Ping round trip p99 per gateway",
                                    new Query(quantile(0.99, "ckc_gateway_ping_round_trip_seconds", "gateway"), "{{gateway}}")),
                            rate("Handovers ordered", "handovers/s",
                                    new Query(flinkRate("handoversOrdered"), "ordered")),
                            rate("Ping reconfigurations, stale reports, gateways turned inactive", "events/s",
                                    new Query(flinkRate("pingReconfigurations"), "ping reconfigurations"),
                                    new Query(flinkRate("staleReports"), "stale reports"),
                                    new Query(flinkRate("gatewaysTurnedInactive"), "turned inactive")))),
            new Dashboard("ckc-flink-jobs", "CKC Flink jobs",
                    "Each CKC job: throughput, backpressure, checkpoints, restarts, dead letters and groups.",
                    List.of(
                            rate("Records in", "records/s", new Query(
                                    "sum by (job_name) (flink_taskmanager_job_task_numRecordsInPerSecond)", "{{job_name}}")),
                            new Panel("Backpressure (worst task)", "ms", "back-pressured (ms per s)", false, List.of(new Query(
                                    "max by (job_name) (flink_taskmanager_job_task_backPressuredTimeMsPerSecond)", "{{job_name}}"))),
                            new Panel("Last checkpoint duration", "ms", "duration (ms)", false, List.of(new Query(
                                    "max by (job_name) (flink_jobmanager_job_lastCheckpointDuration)", "{{job_name}}"))),
                            new Panel("Completed checkpoints and restarts", "short", "count", false, List.of(
                                    new Query("max by (job_name) (flink_jobmanager_job_numberOfCompletedCheckpoints)", "{{job_name}} checkpoints"),
                                    new Query("max by (job_name) (flink_jobmanager_job_numRestarts)", "{{job_name}} restarts"))),
                            rate("Dead letters", "records/s", new Query(flinkRate("deadLetters"), "{{job_name}}"),
                                    new Query("sum by (gateway) (rate(ckc_gateway_dead_letters_total[1m]))", "{{gateway}}")),
                            rate("Groupcast expansion (per group: groupcasts and groupcastRecipients by label group)", "messages/s",
                                    new Query(flinkRate("groupcastsExpanded"), "groupcasts expanded"),
                                    new Query(flinkRate("groupcastDeliveries"), "member deliveries"),
                                    new Query(flinkRate("groupcastMembersLeft"), "members left before their turn")),
                            rate("Group joins and leaves, groupcasts without members", "events/s",
                                    new Query(flinkRate("groupJoins"), "joins"),
                                    new Query(flinkRate("groupLeaves"), "leaves"),
                                    new Query(flinkRate("groupcastsWithoutMembers"), "groupcasts without members")))),
            new Dashboard("ckc-kafka-lag", "CKC Kafka lag",
                    "How far each job's Kafka sources are behind their topics (records not yet read).",
                    List.of(
                            new Panel("Records behind, per job", "short", "records", false, List.of(new Query(
                                    "sum by (job_name) (flink_taskmanager_job_task_operator_pendingRecords)", "{{job_name}}"))),
                            new Panel("Largest partition lag, per job", "short", "records", false, List.of(new Query(
                                    "max by (job_name) (flink_taskmanager_job_task_operator_KafkaSourceReader_KafkaConsumer_records_lag_max)",
                                    "{{job_name}}"))))));

    private Dashboards() {
    }

    /** The dashboards' JSON, by file name. */
    public static Map<String, String> render() throws com.fasterxml.jackson.core.JsonProcessingException {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Map<String, String> files = new TreeMap<>();
        for (Dashboard dashboard : ALL) {
            files.put(dashboard.uid() + ".json", json.writeValueAsString(toJson(json, dashboard)) + "\n");
        }
        return files;
    }

    private static ObjectNode toJson(ObjectMapper json, Dashboard dashboard) {
        ObjectNode root = json.createObjectNode();
        root.put("uid", dashboard.uid());
        root.put("title", dashboard.title());
        root.put("description", dashboard.description());
        root.putArray("tags").add("ckc");
        root.put("schemaVersion", 39);
        root.put("refresh", "10s");
        root.putObject("time").put("from", "now-15m").put("to", "now");
        ObjectNode datasource = root.putObject("templating").putArray("list").addObject();
        datasource.put("name", "datasource").put("label", "Prometheus").put("type", "datasource")
                .put("query", "prometheus");
        ArrayNode panels = root.putArray("panels");
        int id = 1;
        for (Panel panel : dashboard.panels()) {
            ObjectNode p = panels.addObject();
            p.put("id", id);
            p.put("type", "timeseries");
            p.put("title", panel.title());
            int index = id - 1;
            p.putObject("gridPos").put("x", (index % 2) * 12).put("y", (index / 2) * 8).put("w", 12).put("h", 8);
            p.putObject("datasource").put("type", "prometheus").put("uid", "${datasource}");
            ObjectNode defaults = p.putObject("fieldConfig").putObject("defaults");
            defaults.put("unit", panel.unit());
            ObjectNode custom = defaults.putObject("custom");
            custom.put("axisLabel", panel.axis());
            if (panel.logAxis()) {
                custom.putObject("scaleDistribution").put("type", "log").put("log", 10);
            }
            p.with("fieldConfig").putArray("overrides");
            ArrayNode targets = p.putArray("targets");
            char ref = 'A';
            for (Query query : panel.queries()) {
                ObjectNode t = targets.addObject();
                t.put("refId", String.valueOf(ref++));
                t.putObject("datasource").put("type", "prometheus").put("uid", "${datasource}");
                t.put("expr", query.expr());
                t.put("legendFormat", query.legend());
            }
            id++;
        }
        return root;
    }
}
