package io.ckc.jobs.ops;

import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Unicast;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * State survives a JobManager that goes away without high availability: the cluster stops (its JobManager and every
 * job with it) and a new one starts on the same checkpoint folders, knowing no job. {@code submit} then resumes each
 * job from its latest checkpoint, and a message the MTD buffered for a node that was away before the restart reaches
 * the node when it connects after it.
 */
class JobManagerRestartITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @Test
    void aMessageBufferedBeforeTheRestartIsDeliveredAfterIt(@TempDir Path dir) throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo"), List.of("gw-1"));
        List<String> stack = List.of("--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                "--app-topic-prefix", topics.appPrefix(), "--group-selection", "none", "--no-echo");
        String jar = Commands.classpathJar(dir.resolve("ckc-jobs.jar")).toString();
        String node = UUID.randomUUID().toString();
        String messageId = UUID.randomUUID().toString();
        RecordFormat format = new RecordFormat();
        List<String> delivered = new CopyOnWriteArrayList<>();

        try (AutoCloseable gatewayTopic = KAFKA.follow(topics.gateway("gw-1"), record -> {
            try {
                if (format.read(record.value(), GatewayCommand.class) instanceof GatewayCommand.Deliver deliver) {
                    delivered.add(deliver.unicast().messageId());
                }
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }); KafkaProducer<String, byte[]> producer = KAFKA.producer()) {
            try (MiniCluster first = cluster(dir)) {
                String url = first.getRestAddress().get().toString();
                submit(url, jar, stack);
                Unicast unicast = new Unicast(messageId, "restart-test", node, "kept".getBytes(StandardCharsets.UTF_8),
                        null, System.currentTimeMillis(), false);
                RecordMetadata sent = producer.send(new ProducerRecord<>(topics.toMn(), node, format.write(unicast))).get();
                // Why: once the job's group has committed past the message (at a completed checkpoint), Kafka no longer
                // gives it to a job that starts without state: only the restored MTD buffer holds it
                try (Admin admin = Admin.create(Map.of("bootstrap.servers", KAFKA.bootstrapServers()))) {
                    TopicPartition partition = new TopicPartition(sent.topic(), sent.partition());
                    Await.until("the delivery job's offsets committed past the message", 60,
                            () -> committed(admin, "ckc-delivery", partition) > sent.offset());
                }
            }
            assertThat(delivered).as("the node was never connected").isEmpty();

            try (MiniCluster second = cluster(dir)) {
                String url = second.getRestAddress().get().toString();
                Commands.Outcome resumed = submit(url, jar, stack);
                assertThat(resumed.out()).containsPattern("(?m)^  resumed from file:.*/ckc-delivery/[0-9a-f]{32}/chk-\\d+/?$");
                producer.send(new ProducerRecord<>(topics.mnEvents(), node, format.write(
                        MnEvent.connected(node, "gw-1", 1, System.currentTimeMillis())))).get();
                Await.until("the buffered message delivered to the node's new session", 60,
                        () -> delivered.contains(messageId));
                Commands.Outcome again = submit(url, jar, stack);
                assertThat(again.out()).as("a running job is not submitted twice")
                        .containsPattern("(?m)^ckc-delivery [0-9a-f]{32} already RUNNING$");
            }
        }
    }

    /** A cluster whose checkpoints and savepoints are in {@code dir}, checkpointing every 500 ms, with its REST API. */
    private static MiniCluster cluster(Path dir) throws Exception {
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.resolve("checkpoints").toUri().toString());
        config.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, dir.resolve("savepoints").toUri().toString());
        config.setString("execution.checkpointing.interval", "500ms");
        // as the configuration of record (runtime/flink/conf/config.yaml): a job's last checkpoint outlives it
        config.setString("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        config.set(RestOptions.PORT, 0);
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(config)
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(4).build());
        cluster.start();
        return cluster;
    }

    private static Commands.Outcome submit(String url, String jar, List<String> stack) {
        List<String> args = new ArrayList<>(List.of("--flink", url, "submit", "--jar", jar, "--"));
        args.addAll(stack);
        Commands.Outcome outcome = Commands.run(args.toArray(String[]::new));
        assertThat(outcome.code()).as(outcome.err()).isZero();
        return outcome;
    }

    /** The group's committed offset on the partition, -1 for none yet. */
    private static long committed(Admin admin, String group, TopicPartition partition) {
        try {
            OffsetAndMetadata offset = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
                    .get(partition);
            return offset == null ? -1 : offset.offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } catch (java.util.concurrent.ExecutionException e) {
            return -1;
        }
    }
}
