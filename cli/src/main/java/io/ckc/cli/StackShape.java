package io.ckc.cli;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * What a stack is made of: its gateways and how they run, the jobs' parallelism and flags, the extra
 * application channels, monitoring, and the Flink cluster it submitted to (null: the embedded one).
 * Saved in {@code .ckc/stack.properties} while the stack runs, so later commands find it and a command
 * that needs another shape restarts it.
 *
 * @param gatewayProcesses {@code one}: the gateways in one JVM, on shared event loops and one Kafka producer;
 *                         {@code each}: a JVM per gateway, where one gateway must fail alone
 * @param gatewayHeapGb the heap of a gateway JVM, GB; 0: the default ({@link #DEFAULT_GATEWAY_HEAP_GB})
 * @param gatewaySettings {@code NAME=value} settings of the gateways' environment beyond their defaults
 *                        ({@code CKC_SESSION_TIMEOUT_MS=120000})
 * @param kafkaAuth Kafka authenticates every client (SASL/SCRAM) and each component may do only what its grants say
 *                  ({@link io.ckc.protocol.kafka.KafkaAccess}); credentials in {@code .ckc/kafka-auth/}
 */
record StackShape(int gateways, String gatewayProcesses, int appParallelism, int deliveryParallelism,
                  List<String> jobFlags, List<String> channels, boolean monitoring, String flinkUrl,
                  boolean insecure, int gatewayHeapGb, List<String> gatewaySettings, boolean kafkaAuth) {

    static final int FIRST_UDP_PORT = 5500;
    /** MQTT over TLS, where devices' clients look for it; plain MQTT ({@link #insecure}) on 1883 + n instead. */
    static final int FIRST_MQTT_PORT = 8883;
    static final int FIRST_PLAIN_MQTT_PORT = 1883;
    /** MQTT over WebSocket, path /mqtt (over TLS but where {@link #insecure}). */
    static final int FIRST_MQTT_WS_PORT = 8083;
    static final int FIRST_METRICS_PORT = 9400;
    /** The gateways' JVM heap unless a shape asks for more: 3 GB for all in one JVM, 2 GB for one gateway alone. */
    static final int DEFAULT_GATEWAY_HEAP_GB = 3;

    StackShape {
        if (gateways < 1 || appParallelism < 1 || deliveryParallelism < 1) {
            throw new Ckc.Failure("--gateways, --app-parallelism and --delivery-parallelism take positive numbers");
        }
        if (!gatewayProcesses.equals("one") && !gatewayProcesses.equals("each")) {
            throw new Ckc.Failure("--gateway-processes (or CKC_GATEWAY_PROCESSES) is one or each, got '"
                    + gatewayProcesses + "'");
        }
        jobFlags = List.copyOf(jobFlags);
        channels = List.copyOf(channels);
        gatewaySettings = List.copyOf(gatewaySettings);
        for (String setting : gatewaySettings) {
            if (!setting.matches("CKC_[A-Z0-9_]+=\\S+")) {
                throw new Ckc.Failure("a gateway setting is NAME=value, CKC_ and no spaces, got '" + setting + "'");
            }
        }
    }

    /** A stack whose Kafka is open to every client on this machine. */
    StackShape(int gateways, String gatewayProcesses, int appParallelism, int deliveryParallelism, List<String> jobFlags,
               List<String> channels, boolean monitoring, String flinkUrl, boolean insecure, int gatewayHeapGb,
               List<String> gatewaySettings) {
        this(gateways, gatewayProcesses, appParallelism, deliveryParallelism, jobFlags, channels, monitoring, flinkUrl,
                insecure, gatewayHeapGb, gatewaySettings, false);
    }

    /** A stack whose gateways run on their default heap and settings. */
    StackShape(int gateways, String gatewayProcesses, int appParallelism, int deliveryParallelism, List<String> jobFlags,
               List<String> channels, boolean monitoring, String flinkUrl, boolean insecure) {
        this(gateways, gatewayProcesses, appParallelism, deliveryParallelism, jobFlags, channels, monitoring, flinkUrl,
                insecure, 0, List.of());
    }

    /** How gateways run unless asked: CKC_GATEWAY_PROCESSES, else all in one JVM. */
    static String defaultGatewayProcesses() {
        String chosen = System.getenv("CKC_GATEWAY_PROCESSES");
        return chosen == null || chosen.isBlank() ? "one" : chosen.trim();
    }

    /** A stack of this many gateways and this echo parallelism, every other setting as by default. */
    static StackShape of(int gateways, int appParallelism, List<String> jobFlags) {
        return new StackShape(gateways, defaultGatewayProcesses(), appParallelism, 1, jobFlags, List.of(), false, null,
                false);
    }

    /** The same stack with topics for these channels too. */
    StackShape withChannels(List<String> more) {
        List<String> all = new ArrayList<>(channels);
        more.stream().filter(c -> !all.contains(c)).forEach(all::add);
        return new StackShape(gateways, gatewayProcesses, appParallelism, deliveryParallelism, jobFlags, all, monitoring,
                flinkUrl, insecure, gatewayHeapGb, gatewaySettings, kafkaAuth);
    }

    /** The same stack with its gateways authenticating nodes, or not (a perf baseline). */
    StackShape withInsecure(boolean value) {
        return new StackShape(gateways, gatewayProcesses, appParallelism, deliveryParallelism, jobFlags, channels,
                monitoring, flinkUrl, value, gatewayHeapGb, gatewaySettings, kafkaAuth);
    }

    /** The same stack with Kafka authenticating every client and authorizing each by its grants, or open. */
    StackShape withKafkaAuth(boolean value) {
        return new StackShape(gateways, gatewayProcesses, appParallelism, deliveryParallelism, jobFlags, channels,
                monitoring, flinkUrl, insecure, gatewayHeapGb, gatewaySettings, value);
    }

    /** The same stack with gateways of this heap (GB; 0: the default) and these settings of their environment. */
    StackShape withGateways(int heapGb, List<String> settings) {
        return new StackShape(gateways, gatewayProcesses, appParallelism, deliveryParallelism, jobFlags, channels,
                monitoring, flinkUrl, insecure, heapGb, settings, kafkaAuth);
    }

    /** The heap of a gateway JVM, for {@code -Xmx}: as the shape asks, or 3 GB for all in one JVM, 2 GB for one alone. */
    String gatewayHeap() {
        int gb = gatewayHeapGb > 0 ? gatewayHeapGb : gatewayProcesses.equals("one") ? DEFAULT_GATEWAY_HEAP_GB : 2;
        return gb + "g";
    }

    /** {@link #gatewaySettings} as the environment they go into. */
    Map<String, String> gatewayEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String setting : gatewaySettings) {
            int eq = setting.indexOf('=');
            env.put(setting.substring(0, eq), setting.substring(eq + 1));
        }
        return env;
    }

    /** Every application channel of the stack: the echo's, the perf replies', status, then its own. */
    List<String> allChannels() {
        List<String> all = new ArrayList<>(KafkaBroker.STACK_CHANNELS);
        channels.stream().filter(c -> !all.contains(c)).forEach(all::add);
        return all;
    }

    List<String> gatewayIds() {
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= gateways; i++) {
            ids.add("gw-" + i);
        }
        return ids;
    }

    /** The gateways' reliable-UDP addresses, host:port, gw-1 first. */
    List<String> gatewayAddresses() {
        return addresses(FIRST_UDP_PORT);
    }

    /** Where the gateways take MQTT devices, as {@link #gatewayAddresses} are their UDP addresses. */
    List<String> mqttAddresses() {
        return addresses(firstMqttPort());
    }

    /** gw-1's MQTT port, the n-th gateway's n - 1 above: over TLS, or plain where nodes do not authenticate. */
    int firstMqttPort() {
        return insecure ? FIRST_PLAIN_MQTT_PORT : FIRST_MQTT_PORT;
    }

    /** Where the gateways serve their Prometheus metrics, host:port, gw-1 first. */
    List<String> metricsAddresses() {
        return addresses(FIRST_METRICS_PORT);
    }

    /** host:port of each gateway, one port after the other from {@code firstPort}, gw-1 first. */
    private List<String> addresses(int firstPort) {
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < gateways; i++) {
            addresses.add("127.0.0.1:" + (firstPort + i));
        }
        return addresses;
    }

    String firstGateway() {
        return gatewayAddresses().get(0);
    }

    /** The delivery job's flag for the channel it answers itself ({@link io.ckc.protocol.kafka.Topics#IN_JOB_ECHO_CHANNEL}). */
    static final List<String> IN_JOB_ECHO = List.of("--echo-channels", io.ckc.protocol.kafka.Topics.IN_JOB_ECHO_CHANNEL);

    /**
     * The flags every job of this stack gets: Kafka, the parallelism of delivery and echo, the delivery job's own echo
     * channel, then the job flags.
     */
    List<String> stackFlags() {
        List<String> flags = new ArrayList<>(List.of("--bootstrap", KafkaBroker.BOOTSTRAP,
                "--delivery-parallelism", String.valueOf(deliveryParallelism), "--echo-parallelism",
                String.valueOf(appParallelism)));
        flags.addAll(IN_JOB_ECHO);
        flags.addAll(kafkaCredentialsFlags());
        flags.addAll(jobFlags);
        return flags;
    }

    /** The flags a resubmitted job or a rule gets: Kafka, the delivery job's own echo channel, the stack's job flags. */
    List<String> resubmitFlags() {
        List<String> flags = new ArrayList<>(List.of("--bootstrap", KafkaBroker.BOOTSTRAP));
        flags.addAll(IN_JOB_ECHO);
        flags.addAll(kafkaCredentialsFlags());
        flags.addAll(jobFlags);
        return flags;
    }

    /** Where Kafka authenticates: the folder of the jobs' client settings, each job its own principal's. */
    private List<String> kafkaCredentialsFlags() {
        return kafkaAuth ? List.of("--" + io.ckc.jobs.JobCatalog.KAFKA_CREDENTIALS_FLAG,
                new KafkaAuth(Home.current()).dir().toString()) : List.of();
    }

    String flinkRest() {
        return flinkUrl == null ? FlinkRuntime.EMBEDDED_URL : flinkUrl;
    }

    /** Whether a running stack of this shape serves a command that asks for {@code wanted}. */
    boolean serves(StackShape wanted) {
        return gateways == wanted.gateways && appParallelism == wanted.appParallelism
                && gatewayProcesses.equals(wanted.gatewayProcesses) && jobFlags.equals(wanted.jobFlags)
                && channels.containsAll(wanted.channels) && (wanted.flinkUrl == null || wanted.flinkUrl.equals(flinkUrl))
                && insecure == wanted.insecure && gatewayHeapGb == wanted.gatewayHeapGb
                && gatewaySettings.equals(wanted.gatewaySettings) && kafkaAuth == wanted.kafkaAuth;
    }

    void save(Path file) {
        Properties p = new Properties();
        p.setProperty("gateways", String.valueOf(gateways));
        p.setProperty("gateway-processes", gatewayProcesses);
        p.setProperty("app-parallelism", String.valueOf(appParallelism));
        p.setProperty("delivery-parallelism", String.valueOf(deliveryParallelism));
        p.setProperty("job-flags", String.join(" ", jobFlags));
        p.setProperty("channels", String.join(",", channels));
        p.setProperty("monitoring", String.valueOf(monitoring));
        if (flinkUrl != null) {
            p.setProperty("flink", flinkUrl);
        }
        p.setProperty("insecure", String.valueOf(insecure));
        p.setProperty("gateway-heap-gb", String.valueOf(gatewayHeapGb));
        p.setProperty("gateway-settings", String.join(" ", gatewaySettings));
        p.setProperty("kafka-auth", String.valueOf(kafkaAuth));
        try (Writer out = Files.newBufferedWriter(file)) {
            p.store(out, "the running stack (./ckc up); ./ckc down removes it");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Optional<StackShape> load(Path file) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Optional.of(new StackShape(Integer.parseInt(p.getProperty("gateways")),
                p.getProperty("gateway-processes"), Integer.parseInt(p.getProperty("app-parallelism")),
                Integer.parseInt(p.getProperty("delivery-parallelism")), words(p.getProperty("job-flags", ""), " "),
                words(p.getProperty("channels", ""), ","), Boolean.parseBoolean(p.getProperty("monitoring")),
                p.getProperty("flink"), Boolean.parseBoolean(p.getProperty("insecure")),
                Integer.parseInt(p.getProperty("gateway-heap-gb", "0")), words(p.getProperty("gateway-settings", ""), " "),
                Boolean.parseBoolean(p.getProperty("kafka-auth"))));
    }

    private static List<String> words(String text, String separator) {
        return Arrays.stream(text.split(separator)).map(String::trim).filter(w -> !w.isEmpty()).toList();
    }
}
