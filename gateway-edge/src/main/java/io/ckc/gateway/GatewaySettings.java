package io.ckc.gateway;

import io.ckc.protocol.config.Setting;
import io.ckc.protocol.kafka.KafkaClientConfig;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.mrudp.ReliabilityConfig;
import io.ckc.protocol.netty.DatagramTransport;

import java.util.List;

/**
 * Every environment variable a gateway process reads, declared once: {@link GatewayConfig#fromEnv} reads
 * them through these declarations, and {@link ConfigurationDoc} writes {@code docs/configuration.md} from them.
 */
public final class GatewaySettings {

    public static final Setting GATEWAY_ID = Setting.of("CKC_GATEWAY_ID", "gw-1",
            "this gateway's id; it reads only its own delivery topic, ckc.gw.<id>");
    public static final Setting GATEWAY_IDS = Setting.derived("CKC_GATEWAY_IDS", "CKC_GATEWAY_ID",
            "several gateways in one process, comma-separated: the n-th (from 0) listens on CKC_UDP_PORT + n and "
                    + "CKC_MQTT_PORT + n and CKC_MQTT_WS_PORT + n, and serves metrics on CKC_METRICS_PORT + n; all share the process's event loops and one Kafka "
                    + "producer (what ./ckc up runs)");
    public static final Setting KAFKA_BOOTSTRAP = Setting.of("CKC_KAFKA_BOOTSTRAP", "127.0.0.1:9092",
            "Kafka bootstrap servers");
    public static final Setting UDP_HOST = Setting.of("CKC_UDP_HOST", "127.0.0.1",
            "the address the reliable-UDP listener binds (and the metrics server)");
    public static final Setting UDP_PORT = Setting.of("CKC_UDP_PORT", GatewayConfig.DEFAULT_UDP_PORT,
            "the reliable-UDP port (5500: the original gateway's)");
    public static final Setting MQTT_PORT = Setting.derived("CKC_MQTT_PORT",
            GatewayConfig.DEFAULT_MQTT_PORT + ", MQTT over TLS; " + GatewayConfig.DEFAULT_PLAIN_MQTT_PORT
                    + " with CKC_INSECURE=true, where MQTT is plain",
            "the MQTT 3.1.1 and 5 port (TCP, on CKC_UDP_HOST); -1 turns MQTT off, 0 picks a free port");
    public static final Setting MQTT_WS_PORT = Setting.of("CKC_MQTT_WS_PORT", GatewayConfig.DEFAULT_MQTT_WEBSOCKET_PORT,
            "MQTT 3.1.1 and 5 over WebSocket (path /mqtt, subprotocol mqtt, on CKC_UDP_HOST); -1 turns it off, 0 picks "
                    + "a free port");
    public static final Setting PUBLIC_HOST = Setting.derived("CKC_PUBLIC_HOST", "CKC_UDP_HOST",
            "the host mobile nodes use to reach this gateway, as the gateway announces it (HelloPoA, gateway list)");
    public static final Setting METRICS_PORT = Setting.of("CKC_METRICS_PORT", 9400,
            "Prometheus /metrics, and the probes /health/live (the event loops answer) and /health/ready (and Kafka is "
                    + "connected); -1 turns it off, 0 picks a free port");
    public static final Setting TOPIC_PREFIX = Setting.of("CKC_TOPIC_PREFIX", Topics.DEFAULT.prefix(),
            "the prefix of CKC's own topics");
    public static final Setting APP_TOPIC_PREFIX = Setting.of("CKC_APP_TOPIC_PREFIX", Topics.DEFAULT.appPrefix(),
            "the prefix of the application topics: channel X is topic <prefix>X");
    public static final Setting MAX_PAYLOAD_BYTES = Setting.of("CKC_MAX_PAYLOAD_BYTES", 16 * 1024,
            "the largest payload accepted from or sent to a node");
    public static final Setting SESSION_TIMEOUT_MS = Setting.of("CKC_SESSION_TIMEOUT_MS", 30_000,
            "a session silent this long is broken");
    public static final Setting RETRANSMIT_MS = Setting.of("CKC_RETRANSMIT_MS",
            ReliabilityConfig.DEFAULT.initialRetransmitMs(),
            "the retransmission timeout until the round trip is measured, and its floor (it follows the measured "
                    + "round trip and doubles per retry, with jitter)");
    public static final Setting MAX_RETRIES = Setting.of("CKC_MAX_RETRIES", ReliabilityConfig.DEFAULT.maxRetries(),
            "retransmissions of a frame before its session counts as broken");
    /**
     * Kafka's own default since 4.0, and adaptive here ({@code IdleFlusher}): a node's message that finds nothing of
     * the gateway's in flight goes at once, one behind others waits up to this long to share their request. A fixed
     * linger of 1 ms cost the idle stack nothing and the busy one a produce request per few messages (the broker's
     * cost is per request and per partition in it). A B A B at saturation: last good level none and 2,500 msg/s with
     * 1 ms, 2,500 and 4,500 adaptive at 5 ms (perf/results/2026-12-05-0112-adaptive-linger).
     */
    public static final Setting KAFKA_LINGER_MS = Setting.of("CKC_KAFKA_LINGER_MS", 5,
            "the Kafka producer's linger, ms, while the gateway's records are in flight: how long a node's message "
                    + "behind others waits to share their request (one that finds nothing in flight goes at once)");
    public static final Setting REPORT_PERIOD_MS = Setting.of("CKC_REPORT_PERIOD_MS", 2_000,
            "the LoadReport period; the PoA manager counts missed periods of it");
    public static final Setting PING_INTERVAL_MS = Setting.of("CKC_PING_INTERVAL_MS", 5_000,
            "ping windows start this often until the PoA manager sends a PingConfig");
    public static final Setting PING_WINDOW_MS = Setting.of("CKC_PING_WINDOW_MS", 1_000,
            "how long a ping window waits for pongs until the PoA manager sends a PingConfig");
    public static final Setting REPORT_CHUNK = Setting.of("CKC_REPORT_CHUNK", 2_000,
            "nodes per ConnectionReport record (a window of more nodes is split)");
    public static final Setting PING_SAMPLE = Setting.of("CKC_PING_SAMPLE", 1_000,
            "nodes pinged per window at most, drawn at random from the connected ones: enough for the statistics, "
                    + "and a node's idle cost does not grow with the window rate");
    public static final Setting GATEWAY_LIST_INTERVAL_MS = Setting.of("CKC_GATEWAY_LIST_INTERVAL_MS", 30_000,
            "a reordered gateway list goes to the nodes at most this often (a changed set at once)");
    public static final Setting MINI_BUFFER = Setting.of("CKC_MINI_BUFFER", false,
            "paper 4.2: keep the last two acknowledged messages per connection and put them on ckc.unsent when "
                    + "the connection fails");
    public static final Setting CONTEXT_REFRESH_MS = Setting.of("CKC_CONTEXT_REFRESH_MS", 30_000,
            "a node's context goes to ckc.context when it changes, and an unchanged one at least this often "
                    + "(0: every message's)");
    public static final Setting EVENT_LOOPS = Setting.derived("CKC_EVENT_LOOPS", "the number of cores",
            "event loops the sessions are sharded over by node id (the gateway's thread pool)");
    public static final Setting UDP_SOCKET_PER_LOOP = Setting.of("CKC_UDP_SOCKET_PER_LOOP", true,
            "one UDP socket per event loop on the same port (SO_REUSEPORT, where the OS has it); false: one socket "
                    + "for all loops");
    public static final Setting ADMIT_PER_SECOND = Setting.of("CKC_ADMIT_PER_SECOND", 2_000,
            "new sessions admitted per second at most (a token bucket over the event loops); a node refused is "
                    + "told BUSY and tries again after its backoff");
    public static final Setting ADMIT_PENDING = Setting.of("CKC_ADMIT_PENDING", 500,
            "sessions per event loop whose Connected event is not yet in Kafka, at most: admissions slow down "
                    + "as Kafka does");
    public static final Setting DOWNLINK_BACKLOG = Setting.of("CKC_DOWNLINK_BACKLOG", 20_000,
            "deliveries read from Kafka and not yet acknowledged by their nodes, at most; above it the gateway "
                    + "reads no more, so an overload's backlog stays in Kafka");
    public static final Setting UPLINK_TARGET_AGE_MS = Setting.of("CKC_UPLINK_TARGET_AGE_MS", 250,
            "uplink admission (after PIE, RFC 8033): the median age of the deliveries read that the gateway steers "
                    + "to by refusing a share of uplink messages with BUSY; 0: never refuse");
    public static final Setting UPLINK_BURST_MS = Setting.of("CKC_UPLINK_BURST_MS", 10_000,
            "how long that age may stay above the target (a checkpoint, a rescale's restart) before any message "
                    + "is refused");
    public static final Setting NODE_MESSAGES_PER_SECOND = Setting.of("CKC_NODE_MESSAGES_PER_SECOND", 500,
            "a node's messages and groupcasts per second at most (a token bucket holding a second's worth); one "
                    + "beyond is refused as BUSY, which the node sends again later, and counted as RATE_LIMITED; "
                    + "0: no limit");
    public static final Setting NODE_BYTES_PER_SECOND = Setting.of("CKC_NODE_BYTES_PER_SECOND", 2 * 1024 * 1024,
            "a node's payload bytes per second at most (a second's worth, and at least one largest payload, at "
                    + "once); refused and counted like the message limit; 0: no limit");
    public static final Setting ADDRESS_SESSIONS_PER_SECOND = Setting.of("CKC_ADDRESS_SESSIONS_PER_SECOND", 500,
            "new sessions per second from one source address at most, before the gateway-wide CKC_ADMIT_PER_SECOND: "
                    + "a flood of connects from one address takes no more than this from everyone else; a node "
                    + "refused is told BUSY (MQTT 5: Connection rate exceeded) and tries again after its backoff; "
                    + "0: no limit");
    public static final Setting ADDRESS_SESSIONS_BURST = Setting.of("CKC_ADDRESS_SESSIONS_BURST", 2_000,
            "how many of those may come at once (the devices behind one NAT after an outage)");
    public static final Setting FLAP_SESSIONS = Setting.of("CKC_FLAP_SESSIONS", 15,
            "a node whose sessions opened here more than this often within CKC_FLAP_WINDOW_MS is refused new "
                    + "sessions for CKC_FLAP_PENALTY_MS (as EMQX's flapping detection); 0: never");
    public static final Setting FLAP_WINDOW_MS = Setting.of("CKC_FLAP_WINDOW_MS", 60_000,
            "the window CKC_FLAP_SESSIONS counts in");
    public static final Setting FLAP_PENALTY_MS = Setting.of("CKC_FLAP_PENALTY_MS", 60_000,
            "how long a flapping node is refused");

    public static final Setting CREDENTIALS = Setting.optional("CKC_CREDENTIALS",
            "the credential store (JSON, ./ckc credentials writes it): reliable-UDP nodes must prove the key it holds "
                    + "for them in a DTLS 1.2 handshake; read again when it changes");
    public static final Setting INSECURE = Setting.of("CKC_INSECURE", false,
            "true: no authentication, plain frames, and anyone who knows a node id can act as that node: for a perf "
                    + "baseline only (without CKC_CREDENTIALS); the gateway warns at start");
    public static final Setting DTLS_HANDSHAKES_PER_ADDRESS = Setting.of("CKC_DTLS_HANDSHAKES_PER_ADDRESS", 64,
            "DTLS handshakes in progress from one source address at most (a handshake whose node never answers holds "
                    + "its place for the 10 s handshake timeout); a ClientHello beyond is dropped and counted (refused)");
    public static final Setting DTLS_MAX_HANDSHAKES = Setting.of("CKC_DTLS_MAX_HANDSHAKES", 256,
            "DTLS handshakes in progress at most, each on a thread of its own while it waits for its node; a "
                    + "ClientHello beyond is dropped and counted (refused)");

    public static final Setting TLS_KEYSTORE = Setting.optional("CKC_TLS_KEYSTORE",
            "the gateway's certificate and key (PKCS#12) for TLS on its MQTT listeners (TCP and WebSocket): needed "
                    + "with CKC_CREDENTIALS when MQTT is on, for devices send their password in CONNECT");
    public static final Setting TLS_KEYSTORE_PASSWORD = Setting.optional("CKC_TLS_KEYSTORE_PASSWORD",
            "the password of CKC_TLS_KEYSTORE");
    public static final Setting TLS_CLIENT_CA = Setting.optional("CKC_TLS_CLIENT_CA",
            "the certificates (PEM) of the authorities that sign MQTT devices' client certificates: a device that "
                    + "presents one whose subject is CN=<node id> or CN=<fleet>/<node id>, an identity the credential "
                    + "store knows, needs no password (./ckc credentials device-ca makes one)");

    /** Every setting a gateway process reads, in the order the documentation lists them. */
    public static final List<Setting> ALL = List.of(GATEWAY_ID, GATEWAY_IDS, KAFKA_BOOTSTRAP,
            KafkaClientConfig.SETTING, UDP_HOST, UDP_PORT, MQTT_PORT, MQTT_WS_PORT, PUBLIC_HOST, METRICS_PORT, TOPIC_PREFIX, APP_TOPIC_PREFIX,
            MAX_PAYLOAD_BYTES, SESSION_TIMEOUT_MS, RETRANSMIT_MS, MAX_RETRIES, KAFKA_LINGER_MS, REPORT_PERIOD_MS,
            PING_INTERVAL_MS, PING_WINDOW_MS, REPORT_CHUNK, PING_SAMPLE, GATEWAY_LIST_INTERVAL_MS, MINI_BUFFER,
            CONTEXT_REFRESH_MS, EVENT_LOOPS, UDP_SOCKET_PER_LOOP, DatagramTransport.SETTING, ADMIT_PER_SECOND,
            ADMIT_PENDING, DOWNLINK_BACKLOG, UPLINK_TARGET_AGE_MS, UPLINK_BURST_MS, NODE_MESSAGES_PER_SECOND,
            NODE_BYTES_PER_SECOND, ADDRESS_SESSIONS_PER_SECOND, ADDRESS_SESSIONS_BURST, FLAP_SESSIONS, FLAP_WINDOW_MS,
            FLAP_PENALTY_MS, CREDENTIALS, INSECURE, DTLS_HANDSHAKES_PER_ADDRESS, DTLS_MAX_HANDSHAKES, TLS_KEYSTORE,
            TLS_KEYSTORE_PASSWORD, TLS_CLIENT_CA);

    private GatewaySettings() {
    }
}
