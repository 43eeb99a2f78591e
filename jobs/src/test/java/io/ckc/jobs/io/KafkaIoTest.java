package io.ckc.jobs.io;

import org.apache.flink.util.ParameterTool;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaIoTest {

    @Test
    void aSinkLingersAMillisecondUnlessTheJobIsToldOtherwise() {
        KafkaIo byDefault = KafkaIo.fromArgs(ParameterTool.fromArgs(new String[0]));
        KafkaIo noWait = KafkaIo.fromArgs(ParameterTool.fromArgs(new String[] {"--linger-ms", "0"}));

        assertThat(byDefault.producerConfig()).containsEntry(ProducerConfig.LINGER_MS_CONFIG, "1")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        assertThat(noWait.producerConfig()).containsEntry(ProducerConfig.LINGER_MS_CONFIG, "0");
    }

    @Test
    void aNegativeLingerIsRefusedByName() {
        assertThatThrownBy(() -> KafkaIo.fromArgs(ParameterTool.fromArgs(new String[] {"--linger-ms", "-1"})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--linger-ms");
    }
}
