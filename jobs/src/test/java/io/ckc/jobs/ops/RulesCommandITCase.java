package io.ckc.jobs.ops;

import io.ckc.protocol.records.Context;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.ckc.protocol.kafka.TopicSetup;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./ckc sql start|list|replace|stop} on a MiniCluster and real Kafka: a rule starts after its
 * check, shows in the list with its definer id, a second rule with that definer id and a broken rule are
 * refused with nothing changed, a new version replaces it without leaving a membership of the old one,
 * and a stopped rule leaves the list.
 */
class RulesCommandITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(checkpointEverySecond()).setNumberTaskManagers(1).setNumberSlotsPerTaskManager(3).build());

    /** As on a stack: a rule commits its Kafka offsets on checkpoints, so a restart under its name resumes there. */
    private static Configuration checkpointEverySecond() {
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
        return config;
    }

    private static long committed(Admin admin) {
        try {
            return admin.listConsumerGroupOffsets("ckc-sql-drivers").partitionsToOffsetAndMetadata().get()
                    .values().stream().filter(java.util.Objects::nonNull).mapToLong(OffsetAndMetadata::offset).sum();
        } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
            return 0;
        }
    }

    @Test
    void aRuleStartsListsIsReplacedWithoutStaleMembershipsAndStops(@InjectClusterClient RestClusterClient<?> client,
                                                                   @TempDir Path dir) throws Exception {
        String url = client.getWebInterfaceURL();
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of(), List.of());
        String jar = Commands.classpathJar(dir.resolve("ckc-jobs.jar")).toString();
        Path drivers = Files.writeString(dir.resolve("drivers.sql"), Files.readString(Path.of("../sql/drivers.sql")));
        Path passengers = Files.writeString(dir.resolve("passengers.sql"), """
                -- definer: role
                SELECT mnId, 'passengers' AS grp FROM context_reports
                WHERE JSON_VALUE(raw, '$.context.attributes.role') = 'passenger'
                """);
        Path broken = Files.writeString(dir.resolve("broken.sql"), "SELECT mnId, 'x' AS grp\nFROM context_reportz\n");
        Map<String, List<String>> latest = new ConcurrentHashMap<>();
        try (AutoCloseable groups = KAFKA.followJson(topics.groups(), GroupAdvertisement.class,
                a -> latest.put(a.mnId(), a.groups()));
             KafkaProducer<String, byte[]> gateway = KAFKA.producer()) {
            var format = new RecordFormat();
            for (String[] node : new String[][] {{"mn-1", "driver"}, {"mn-2", "passenger"}}) {
                gateway.send(new ProducerRecord<>(topics.context(), node[0], format.write(new ContextReport(node[0],
                        "gw-1", System.currentTimeMillis(), new Context(-22.9, -43.17, 0.5, Map.of("role", node[1]))))));
            }
            gateway.flush();

            Commands.Outcome started = start(url, drivers, jar, topics);
            assertThat(started.code()).as(started.err()).isZero();
            assertThat(started.out()).startsWith("rule drivers (short form, definer role) runs as Flink job ");
            Await.until("the drivers rule's groups", 60, () -> List.of("drivers").equals(latest.get("mn-1"))
                    && List.of().equals(latest.get("mn-2")));
            Commands.Outcome list = Commands.rules("--flink", url, "list");
            assertThat(list.out()).containsPattern("(?m)^drivers\\s+role\\s+[0-9a-f]{32}\\s+RUNNING\\s+\\d{4}-");

            assertThat(start(url, drivers, jar, topics).err()).startsWith("ckc: rule drivers runs already (job ");
            assertThat(start(url, passengers, jar, topics).err())
                    .startsWith("ckc: definer id role is in use by rule drivers");
            Commands.Outcome refused = start(url, broken, jar, topics);
            assertThat(refused.code()).isOne();
            assertThat(refused.err()).startsWith("ckc: " + broken + ":2:6: ").contains("context_reportz");
            assertThat(Commands.rules("--flink", url, "list").out().lines().count()).as("still one rule").isEqualTo(2);

            // The new version reads the context from the beginning: mn-1 leaves drivers with no new report,
            // although the old version's consumer group had committed its offsets past both reports.
            try (Admin admin = TopicSetup.admin(KAFKA.bootstrapServers())) {
                Await.until("the drivers rule's offsets committed past both reports", 60, () -> committed(admin) >= 2);
            }
            String savepoints = dir.resolve("savepoints").toUri().toString();
            List<String> replace = new ArrayList<>(List.of("--flink", url, "--tables", "../sql/tables.sql",
                    "--savepoint-dir", savepoints, "replace",
                    "drivers", passengers.toString(), "--jar", jar, "--"));
            replace.addAll(flags(topics));
            Commands.Outcome replaced = Commands.rules(replace.toArray(String[]::new));
            assertThat(replaced.code()).as(replaced.err()).isZero();
            assertThat(replaced.out()).startsWith("rule drivers replaced: old version stopped (savepoint ");
            Await.until("the new version's groups, none of the old", 60, () -> List.of().equals(latest.get("mn-1"))
                    && List.of("passengers").equals(latest.get("mn-2")));

            Commands.Outcome stopped = Commands.rules("--flink", url, "--savepoint-dir", savepoints, "stop", "drivers");
            assertThat(stopped.code()).as(stopped.err()).isZero();
            assertThat(Commands.rules("--flink", url, "list").out()).doesNotContain("drivers ");
            assertThat(Commands.rules("--flink", url, "stop", "drivers").err()).isEqualTo(
                    "ckc: no running rule 'drivers': see ./ckc sql list" + System.lineSeparator());
        }
    }

    private static List<String> flags(Topics topics) {
        return List.of("--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix());
    }

    private static Commands.Outcome start(String url, Path rule, String jar, Topics topics) {
        List<String> args = new ArrayList<>(List.of("--flink", url, "--tables", "../sql/tables.sql", "start",
                rule.toString(), "--jar", jar, "--"));
        args.addAll(flags(topics));
        return Commands.rules(args.toArray(String[]::new));
    }
}
