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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Creates CKC's topics with explicit partitions and retention, so nothing depends on broker
 * auto-creation (which ACL-protected clusters forbid). Idempotent: existing topics are kept.
 *
 * <p>Command line: {@code TopicSetup <bootstrap> [--gateways gw1,gw2] [--channels echo,...] [--partitions N]}.
 */
public final class TopicSetup {

    private static final Logger LOG = LoggerFactory.getLogger(TopicSetup.class);
    /** Divisible by 1, 2, 3 and 6: the parallelisms this project runs with. */
    public static final int DEFAULT_PARTITIONS = 6;
    private static final String WEEK_MS = String.valueOf(TimeUnit.DAYS.toMillis(7));
    private static final String DAY_MS = String.valueOf(TimeUnit.DAYS.toMillis(1));
    private static final String HOUR_MS = String.valueOf(TimeUnit.HOURS.toMillis(1));
    private static final Map<String, String> COMPACTED = Map.of("cleanup.policy", "compact",
            "min.cleanable.dirty.ratio", "0.1", "segment.ms", HOUR_MS);

    private final Topics topics;
    private final int partitions;

    public TopicSetup(Topics topics, int partitions) {
        this.topics = topics;
        this.partitions = partitions;
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
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        return Admin.create(props);
    }

    private static NewTopic topic(String name, int partitions, Map<String, String> config) {
        return new NewTopic(name, partitions, (short) 1).configs(config);
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1) {
            System.err.println("usage: TopicSetup <bootstrap> [--gateways gw1,gw2] [--channels echo] [--partitions N]");
            System.exit(2);
        }
        String bootstrap = args[0];
        List<String> gateways = List.of();
        List<String> channels = List.of("echo");
        int partitions = DEFAULT_PARTITIONS;
        for (int i = 1; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--gateways" -> gateways = split(args[i + 1]);
                case "--channels" -> channels = split(args[i + 1]);
                case "--partitions" -> partitions = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        TopicSetup setup = new TopicSetup(Topics.DEFAULT, partitions);
        List<NewTopic> wanted = new ArrayList<>(setup.coreTopics(channels));
        gateways.forEach(gw -> wanted.add(setup.gatewayTopic(gw)));
        try (Admin admin = admin(bootstrap)) {
            create(admin, wanted);
        }
    }

    private static List<String> split(String csv) {
        return Arrays.stream(csv.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
