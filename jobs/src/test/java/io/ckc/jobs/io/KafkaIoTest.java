package io.ckc.jobs.io;

import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.util.ParameterTool;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaIoTest {

    @Test
    void aSinkLingersFiveMillisecondsUnlessTheJobIsToldOtherwise() {
        KafkaIo byDefault = KafkaIo.fromArgs(ParameterTool.fromArgs(new String[0]));
        KafkaIo noWait = KafkaIo.fromArgs(ParameterTool.fromArgs(new String[] {"--linger-ms", "0"}));

        assertThat(byDefault.producerConfig()).containsEntry(ProducerConfig.LINGER_MS_CONFIG, "5")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        assertThat(noWait.producerConfig()).containsEntry(ProducerConfig.LINGER_MS_CONFIG, "0");
    }

    @Test
    void anAtLeastOnceSinkHasTheAdaptiveLingerAndAnExactlyOnceOneTheConnectorsTransactions() {
        KafkaIo atLeastOnce = KafkaIo.fromArgs(ParameterTool.fromArgs(new String[0]));
        KafkaIo exactlyOnce = KafkaIo.fromArgs(ParameterTool.fromArgs(new String[] {"--sink-guarantee", "exactly-once"}));

        assertThat(atLeastOnce.deadLetterSink("test")).isInstanceOf(AtLeastOnceKafkaSink.class);
        assertThat(exactlyOnce.deadLetterSink("test")).isInstanceOf(KafkaSink.class);
    }

    @Test
    void aNegativeLingerIsRefusedByName() {
        assertThatThrownBy(() -> KafkaIo.fromArgs(ParameterTool.fromArgs(new String[] {"--linger-ms", "-1"})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--linger-ms");
    }
}
