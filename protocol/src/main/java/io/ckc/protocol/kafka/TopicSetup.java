package io.ckc.protocol.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Creates CKC's topics with explicit partitions and retention, so nothing depends on broker
 * auto-creation (which ACL-protected clusters forbid). Idempotent: existing topics are kept.
 *
 * <p>Replication: every topic gets {@code replicationFactor} replicas and {@code min.insync.replicas}
 * (1 and 1 on one broker, as {@code ./ckc} runs it; 3 and 2 in the compose and Kubernetes files, so a
 * write acknowledged by all in-sync replicas survives the loss of a broker). The Kubernetes
 * {@code KafkaTopic} resources are generated from this class ({@code io.ckc.deploy.Manifests}).
 *
 * <p>Command line: {@code TopicSetup <bootstrap> [--gateways gw1,gw2] [--channels echo,...] [--partitions N]
 * [--replication-factor R] [--min-insync-replicas M]}.
 */
public final class TopicSetup {

    private static final Logger LOG = LoggerFactory.getLogger(TopicSetup.class);
    /** Divisible by 1, 2, 3 and 6: the parallelisms this project runs with. */
    public static final int DEFAULT_PARTITIONS = 6;
    private static final String WEEK_MS = String.valueOf(TimeUnit.DAYS.toMillis(7));
    private static final String DAY_MS = String.valueOf(TimeUnit.DAYS.toMillis(1));
    private static final String HOUR_MS = String.valueOf(TimeUnit.HOURS.toMillis(1));
    /**
     * A compacted topic's records are compacted once their segment is closed: with a segment every 10 minutes, a
     * gateway starting reads at most 10 minutes of superseded gateway lists before the latest, not an hour's, and
     * each partition's files step once (the cleaned segment beside the active one) 10 minutes in, not an hour in
     * (at minute 57 of the soak in perf/results/2026-11-28-0043-soak).
     */
    private static final Map<String, String> COMPACTED = Map.of("cleanup.policy", "compact",
            "min.cleanable.dirty.ratio", "0.1", "segment.ms", String.valueOf(TimeUnit.MINUTES.toMillis(10)));

    private final Topics topics;
    private final int partitions;
    private final short replicationFactor;
    private final int minInsyncReplicas;

    /** Topics on one broker: one replica each. */
    public TopicSetup(Topics topics, int partitions) {
        this(topics, partitions, (short) 1, 1);
    }

    public TopicSetup(Topics topics, int partitions, short replicationFactor, int minInsyncReplicas) {
        if (partitions < 1 || replicationFactor < 1 || minInsyncReplicas < 1 || minInsyncReplicas > replicationFactor) {
            throw new IllegalArgumentException("partitions and replication factor must be at least 1, and "
                    + "min.insync.replicas between 1 and the replication factor; got " + partitions + ", "
                    + replicationFactor + ", " + minInsyncReplicas);
        }
        this.topics = topics;
        this.partitions = partitions;
        this.replicationFactor = replicationFactor;
        this.minInsyncReplicas = minInsyncReplicas;
    }

    /** The core topics, one per channel and one per gateway. */
    public List<NewTopic> allTopics(List<String> channels, List<String> gatewayIds) {
        List<NewTopic> all = new ArrayList<>(coreTopics(channels));
        gatewayIds.forEach(gw -> all.add(gatewayTopic(gw)));
        return all;
    }

    /** The core topics plus one application topic per channel. */
    public List<NewTopic> coreTopics(List<String> channels) {
        List<NewTopic> all = new ArrayList<>();
        all.add(topic(topics.mnEvents(), partitions, Map.of("retention.ms", WEEK_MS)));
        all.add(topic(topics.toMn(), partitions, Map.of("retention.ms", DAY_MS)));
        all.add(topic(topics.context(), partitions, Map.of("retention.ms", DAY_MS)));
        all.add(topic(topics.groups(), partitions, COMPACTED));
        all.add(topic(topics.groupcast(), partitions, Map.of("retention.ms", DAY_MS)));
        all.add(topic(topics.broadcast(), 1, Map.of("retention.ms", DAY_MS)));
        all.add(topic(topics.unsent(), partitions, Map.of("retention.ms", DAY_MS)));
        all.add(topic(topics.delivered(), partitions, Map.of("retention.ms", DAY_MS)));
        all.add(topic(topics.receipts(), partitions, Map.of("retention.ms", WEEK_MS)));
        all.add(topic(topics.deadLetter(), 1, Map.of("retention.ms", WEEK_MS)));
        // PoA manager: reports are transient (only the latest matter), the list and control are compacted.
        all.add(topic(topics.gatewayHello(), partitions, Map.of("retention.ms", WEEK_MS)));
        all.add(topic(topics.gatewayLoad(), partitions, Map.of("retention.ms", HOUR_MS)));
        all.add(topic(topics.gatewayConnections(), partitions,
                Map.of("retention.ms", HOUR_MS, "max.message.bytes", String.valueOf(4 * 1024 * 1024))));
        all.add(topic(topics.gatewayStats(), partitions, Map.of("retention.ms", DAY_MS)));
        all.add(topic(topics.balanceRounds(), 1, Map.of("retention.ms", DAY_MS)));
        all.add(topic(topics.gatewayList(), 1, COMPACTED));
        all.add(topic(topics.poaControl(), 1, COMPACTED));
        for (String channel : channels) {
            all.add(topic(topics.app(channel), partitions, Map.of("retention.ms", DAY_MS)));
        }
        return all;
    }

    /** A gateway's own delivery topic: only that gateway consumes it. */
    public NewTopic gatewayTopic(String gatewayId) {
        return topic(topics.gateway(gatewayId), 1, Map.of("retention.ms", DAY_MS));
    }

    /** Creates the given topics, keeping those that exist. */
    public static void create(Admin admin, List<NewTopic> wanted) throws InterruptedException {
        try {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = wanted.stream().filter(t -> !existing.contains(t.name())).toList();
            if (missing.isEmpty()) {
                return;
            }
            for (var entry : admin.createTopics(missing).values().entrySet()) {
                try {
                    entry.getValue().get(30, TimeUnit.SECONDS);
                    LOG.info("Created topic {}", entry.getKey());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic " + entry.getKey(), e.getCause());
                    }
                }
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot list or create topics", e);
        }
    }

    public static Admin admin(String bootstrapServers) {
        return admin(bootstrapServers, KafkaClientConfig.security());
    }

    /** An admin client with these security settings (a principal other than the process's own). */
    public static Admin admin(String bootstrapServers, Properties security) {
        Properties props = new Properties();
        props.putAll(security);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        return Admin.create(props);
    }

    private NewTopic topic(String name, int partitions, Map<String, String> config) {
        Map<String, String> all = new TreeMap<>(config);
        all.put("min.insync.replicas", String.valueOf(minInsyncReplicas));
        return new NewTopic(name, partitions, replicationFactor).configs(all);
    }

    /** The command line's options, parsed. */
    public record Options(String bootstrap, List<String> gateways, List<String> channels, TopicSetup setup) {

        /** Parses the options from {@code args[first]} on ({@code args[0]} is the bootstrap when first is 1). */
        public static Options parse(String[] args, int first) {
            String bootstrap = first > 0 ? args[0] : null;
            List<String> gateways = List.of();
            List<String> channels = List.of("echo");
            int partitions = DEFAULT_PARTITIONS;
            short replicationFactor = 1;
            int minInsyncReplicas = 1;
            for (int i = first; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + args[i] + " needs a value");
                }
                switch (args[i]) {
                    case "--gateways" -> gateways = split(args[i + 1]);
                    case "--channels" -> channels = split(args[i + 1]);
                    case "--partitions" -> partitions = Integer.parseInt(args[i + 1]);
                    case "--replication-factor" -> replicationFactor = Short.parseShort(args[i + 1]);
                    case "--min-insync-replicas" -> minInsyncReplicas = Integer.parseInt(args[i + 1]);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            return new Options(bootstrap, gateways, channels,
                    new TopicSetup(Topics.DEFAULT, partitions, replicationFactor, minInsyncReplicas));
        }

        public List<NewTopic> topics() {
            return setup.allTopics(channels, gateways);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1) {
            System.err.println("usage: TopicSetup <bootstrap> [--gateways gw1,gw2] [--channels echo] [--partitions N] "
                    + "[--replication-factor R] [--min-insync-replicas M]");
            System.exit(2);
        }
        Options options = Options.parse(args, 1);
        try (Admin admin = admin(options.bootstrap())) {
            create(admin, options.topics());
        }
    }

    private static List<String> split(String csv) {
        return Arrays.stream(csv.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
