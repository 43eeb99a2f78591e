package io.ckc.gateway.core;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;

/** The gateway's Prometheus metrics, all labelled with the gateway id. */
public final class GatewayMetrics {

    public final Gauge sessions;
    public final Counter connects;
    public final Counter connectsRefused;
    /** Nodes found flapping ({@link NodeLimits}): refused new sessions for a while. */
    public final Counter flappingNodes;
    public final Counter downlinkWaits;
    public final Counter disconnects;
    public final Counter messagesIn;
    public final Counter messagesOut;
    public final Counter retransmissions;
    public final Counter malformedFrames;
    public final Counter rejected;
    public final Counter kafkaErrors;
    public final Counter unsent;
    public final Counter deadLetters;
    public final Counter pingWindows;
    public final Counter latePongs;
    public final Gauge pingWindowMs;
    public final Counter handovers;
    public final Counter gatewayLists;
    public final Counter groupcastsIn;
    public final Counter broadcasts;
    /** MQTT Wills published for devices whose connection ended without a DISCONNECT. */
    public final Counter wills;
    public final Counter contextUnchanged;
    /** Deliveries a node's protocol can never take (larger than an MQTT 5 device's Maximum Packet Size): dropped. */
    public final Counter undeliverable;
    /** Ping round trips of the nodes here: the paper's latency measure, the PoA manager's input. */
    public final Histogram pingRoundTrip;
    /** From a record handed to the Kafka producer to its acknowledgement: what a node's message waits for. */
    public final Histogram kafkaWrite;
    /** The median age of the deliveries read in the latest window: how far the path through Kafka and the jobs is behind. */
    public final Gauge deliveryAge;
    /** The share of uplink messages refused as BUSY now ({@link UplinkAdmission}). */
    public final Gauge uplinkRefuseProbability;
    /** DTLS: handshakes by outcome, sessions up, and datagrams dropped before they reached a session, by reason. */
    public final Counter dtlsHandshakes;
    public final Gauge dtlsSessions;
    public final Counter dtlsDropped;
    /** UDP: each shard socket's congestion window over its nodes' deliveries, its limit and the frames in flight. */
    public final Gauge downlinkWindow;
    /** UDP: how often a shard's congestion window was halved (a delivery timed out, or a node said it was busy). */
    public final Counter downlinkWindowReductions;

    public GatewayMetrics(String gatewayId, PrometheusRegistry registry) {
        Labels labels = Labels.of("gateway", gatewayId);
        dtlsHandshakes = Counter.builder().name("ckc_gateway_dtls_handshakes")
                .help("DTLS handshakes, by outcome: ok, failed (unknown node, wrong key, timed out), refused (too "
                        + "many at once, or from one address)")
                .labelNames("outcome").constLabels(labels).register(registry);
        dtlsSessions = Gauge.builder().name("ckc_gateway_dtls_sessions").help("DTLS sessions up")
                .constLabels(labels).register(registry);
        dtlsDropped = Counter.builder().name("ckc_gateway_dtls_dropped")
                .help("Datagrams dropped by the DTLS layer, by reason: unauthenticated (not DTLS, or not a handshake "
                        + "from an unknown sender), unknown_session (a connection ID no session has), forged (a record "
                        + "that failed authentication or was replayed), wrong_node (a frame naming another node than "
                        + "the session's), queue_full, no_session (a frame to a node without a session)")
                .labelNames("reason").constLabels(labels).register(registry);
        downlinkWindow = Gauge.builder().name("ckc_gateway_downlink_window_frames")
                .help("UDP: each shard socket's congestion window over its nodes' deliveries: its limit, and the frames "
                        + "in flight (in_flight)")
                .labelNames("shard", "frames").constLabels(labels).register(registry);
        downlinkWindowReductions = Counter.builder().name("ckc_gateway_downlink_window_reductions")
                .help("UDP: times a shard's congestion window was halved (a delivery timed out, or a node was busy)")
                .constLabels(labels).register(registry);
        sessions = Gauge.builder().name("ckc_gateway_sessions").help("Connected mobile node sessions")
                .constLabels(labels).register(registry);
        connects = Counter.builder().name("ckc_gateway_connects").help("Sessions opened")
                .constLabels(labels).register(registry);
        connectsRefused = Counter.builder().name("ckc_gateway_connects_refused")
                .help("New sessions refused, by reason: busy (admitted no faster than the gateway serves them), "
                        + "address_rate (too many from one source address), flapping (the node opened too many), "
                        + "bad_credentials (an MQTT username and password the credential store does not know)")
                .labelNames("reason").constLabels(labels).register(registry);
        flappingNodes = Counter.builder().name("ckc_gateway_flapping_nodes")
                .help("Nodes that opened more than CKC_FLAP_SESSIONS sessions within CKC_FLAP_WINDOW_MS, refused "
                        + "new ones for CKC_FLAP_PENALTY_MS")
                .constLabels(labels).register(registry);
        downlinkWaits = Counter.builder().name("ckc_gateway_downlink_waits")
                .help("5 ms pauses of the core consumer while the deliveries not yet acknowledged were above CKC_DOWNLINK_BACKLOG")
                .constLabels(labels).register(registry);
        disconnects = Counter.builder().name("ckc_gateway_disconnects").help("Sessions closed, by reason")
                .labelNames("reason").constLabels(labels).register(registry);
        messagesIn = Counter.builder().name("ckc_gateway_messages_in").help("MN messages published to Kafka")
                .constLabels(labels).register(registry);
        messagesOut = Counter.builder().name("ckc_gateway_messages_out").help("Deliveries acknowledged by MNs")
                .constLabels(labels).register(registry);
        retransmissions = Counter.builder().name("ckc_gateway_retransmissions").help("Data frames sent again")
                .constLabels(labels).register(registry);
        malformedFrames = Counter.builder().name("ckc_gateway_malformed_frames").help("Datagrams dropped as malformed")
                .labelNames("reason").constLabels(labels).register(registry);
        rejected = Counter.builder().name("ckc_gateway_rejected_messages").help("MN messages refused, by error code")
                .labelNames("code").constLabels(labels).register(registry);
        kafkaErrors = Counter.builder().name("ckc_gateway_kafka_errors").help("Kafka writes or reads that failed")
                .constLabels(labels).register(registry);
        unsent = Counter.builder().name("ckc_gateway_unsent").help("Deliveries put on the unsent topic, by reason")
                .labelNames("reason").constLabels(labels).register(registry);
        deadLetters = Counter.builder().name("ckc_gateway_dead_letters").help("Records sent to the dead-letter topic")
                .constLabels(labels).register(registry);
        pingWindows = Counter.builder().name("ckc_gateway_ping_windows").help("Ping windows closed and reported")
                .constLabels(labels).register(registry);
        latePongs = Counter.builder().name("ckc_gateway_late_pongs").help("Pongs discarded: they came after the window")
                .constLabels(labels).register(registry);
        pingWindowMs = Gauge.builder().name("ckc_gateway_ping_window_ms").help("Current ping window length")
                .constLabels(labels).register(registry);
        handovers = Counter.builder().name("ckc_gateway_handovers").help("Handover commands from the PoA manager, by outcome")
                .labelNames("outcome").constLabels(labels).register(registry);
        gatewayLists = Counter.builder().name("ckc_gateway_gateway_lists").help("Changed gateway lists forwarded to the nodes")
                .constLabels(labels).register(registry);
        groupcastsIn = Counter.builder().name("ckc_gateway_groupcasts_in").help("MN groupcasts published to Kafka")
                .constLabels(labels).register(registry);
        contextUnchanged = Counter.builder().name("ckc_gateway_context_unchanged")
                .help("Context reports not written: the same as the node's last one, within the refresh interval")
                .constLabels(labels).register(registry);
        broadcasts = Counter.builder().name("ckc_gateway_broadcast_deliveries")
                .help("Broadcast deliveries started, one per connected node and broadcast")
                .constLabels(labels).register(registry);
        wills = Counter.builder().name("ckc_gateway_mqtt_wills")
                .help("MQTT Will messages published for devices whose connection ended without a DISCONNECT")
                .constLabels(labels).register(registry);
        undeliverable = Counter.builder().name("ckc_gateway_undeliverable_messages")
                .help("Deliveries dropped because the node's protocol can never take them, such as a publish larger "
                        + "than an MQTT 5 device's Maximum Packet Size")
                .constLabels(labels).register(registry);
        deliveryAge = Gauge.builder().name("ckc_gateway_delivery_age_seconds")
                .help("Median age of the deliveries read in the latest window (now minus their Kafka timestamp)")
                .constLabels(labels).register(registry);
        uplinkRefuseProbability = Gauge.builder().name("ckc_gateway_uplink_refuse_probability")
                .help("Share of uplink messages refused as BUSY while the deliveries are older than CKC_UPLINK_TARGET_AGE_MS")
                .constLabels(labels).register(registry);
        // Why classic buckets only: Prometheus 2.42 (Debian's) scrapes them without feature flags.
        double[] seconds = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
        pingRoundTrip = Histogram.builder().name("ckc_gateway_ping_round_trip_seconds")
                .help("Ping round trips of the nodes connected here").classicOnly().classicUpperBounds(seconds)
                .constLabels(labels).register(registry);
        kafkaWrite = Histogram.builder().name("ckc_gateway_kafka_write_seconds")
                .help("Kafka writes from send to acknowledgement").classicOnly().classicUpperBounds(seconds)
                .constLabels(labels).register(registry);
    }
}
