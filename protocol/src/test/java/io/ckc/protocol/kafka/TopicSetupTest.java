package io.ckc.protocol.kafka;

import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopicSetupTest {

    @Test
    void everyTopicGetsTheReplicationAndMinInsyncReplicasAsked() {
        TopicSetup.Options options = TopicSetup.Options.parse(new String[] {"127.0.0.1:9092", "--gateways", "gw-1,gw-2",
                "--replication-factor", "3", "--min-insync-replicas", "2"}, 1);
        List<NewTopic> topics = options.topics();
        assertThat(topics).extracting(NewTopic::name).contains(Topics.DEFAULT.mnEvents(), Topics.DEFAULT.gateway("gw-2"),
                Topics.DEFAULT.app("echo"));
        assertThat(topics).allSatisfy(topic -> {
            assertThat(topic.replicationFactor()).isEqualTo((short) 3);
            assertThat(topic.configs()).containsEntry("min.insync.replicas", "2");
        });
    }

    @Test
    void oneBrokerByDefault() {
        List<NewTopic> topics = TopicSetup.Options.parse(new String[] {"127.0.0.1:9092"}, 1).topics();
        assertThat(topics).allSatisfy(topic -> {
            assertThat(topic.replicationFactor()).isEqualTo((short) 1);
            assertThat(topic.configs()).containsEntry("min.insync.replicas", "1");
        });
    }

    @Test
    void refusesMoreInsyncReplicasThanReplicas() {
        assertThatThrownBy(() -> TopicSetup.Options.parse(new String[] {"b:9092", "--replication-factor", "1",
                "--min-insync-replicas", "2"}, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("min.insync.replicas between 1 and the replication factor");
    }
}
