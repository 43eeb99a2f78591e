package io.ckc.protocol.kafka;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaClientConfigTest {

    @Test
    void withoutTheFileClientsUsePlaintext() {
        assertThat(KafkaClientConfig.security(Map.of())).isEmpty();
    }

    @Test
    void readsTheSecuritySettingsOfTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(file, """
                security.protocol=SASL_SSL
                sasl.mechanism=SCRAM-SHA-512
                sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="ckc" password="s3cret";
                ssl.truststore.location=/etc/ckc/kafka/ca.p12
                ssl.truststore.type=PKCS12
                """);
        Properties props = KafkaClientConfig.security(Map.of(KafkaClientConfig.ENV, file.toString()));
        assertThat(props).containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("ssl.truststore.type", "PKCS12")
                .hasSize(5);
        assertThat(props.getProperty("sasl.jaas.config")).contains("username=\"ckc\"");
    }

    @Test
    void refusesAKeyThatIsNotASecuritySetting(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(file, "security.protocol=SSL\nlinger.ms=100\n");
        assertThatThrownBy(() -> KafkaClientConfig.security(Map.of(KafkaClientConfig.ENV, file.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'linger.ms' is not a client security setting");
    }

    @Test
    void aMissingFileIsOneClearError(@TempDir Path dir) {
        Path file = dir.resolve("nowhere.properties");
        assertThatThrownBy(() -> KafkaClientConfig.security(Map.of(KafkaClientConfig.ENV, file.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(KafkaClientConfig.ENV + " names " + file + ", which does not exist");
    }
}
