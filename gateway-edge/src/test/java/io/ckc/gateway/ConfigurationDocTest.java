package io.ckc.gateway;

import io.ckc.protocol.config.Setting;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigurationDocTest {

    @Test
    void theCommittedConfigurationPageIsTheOneRenderedFromTheSettings() throws Exception {
        Path committed = Path.of("..").resolve(ConfigurationDoc.FILE);

        assertThat(Files.readString(committed, StandardCharsets.UTF_8))
                .as("%s is generated from GatewaySettings: run ./ckc docs generate", ConfigurationDoc.FILE)
                .isEqualTo(ConfigurationDoc.render());
    }

    @Test
    void everySettingTheGatewayReadsChangesItsConfiguration() {
        Map<String, String> base = Map.of(GatewaySettings.CREDENTIALS.name(), "credentials.json",
                GatewaySettings.TLS_KEYSTORE.name(), "gateway.p12");
        GatewayConfig defaults = GatewayConfig.fromEnv(base);
        for (Setting setting : GatewaySettings.ALL) {
            if (setting == GatewaySettings.GATEWAY_IDS || !GatewaySettings.class.equals(declaringClass(setting))) {
                continue; // read by hostedFromEnv, or outside GatewayConfig (the transport, Kafka security)
            }
            Map<String, String> env = new HashMap<>(base);
            if (setting == GatewaySettings.INSECURE) {
                env.remove(GatewaySettings.CREDENTIALS.name()); // the insecure mode has no store
            }
            env.put(setting.name(), otherValue(setting, defaults));
            assertThat(GatewayConfig.fromEnv(env)).as("%s is read", setting.name()).isNotEqualTo(defaults);
        }
    }

    @Test
    void aGatewayAuthenticatesUnlessToldExplicitlyNotTo() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> GatewayConfig.fromEnv(Map.of()))
                .hasMessageContaining("CKC_CREDENTIALS").hasMessageContaining("CKC_INSECURE=true");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> GatewayConfig.fromEnv(Map.of(
                        "CKC_CREDENTIALS", "credentials.json", "CKC_INSECURE", "true")))
                .hasMessageContaining("both");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> GatewayConfig.fromEnv(Map.of(
                        "CKC_CREDENTIALS", "credentials.json")))
                .as("MQTT passwords need TLS").hasMessageContaining("CKC_TLS_KEYSTORE");
        assertThat(GatewayConfig.fromEnv(Map.of("CKC_CREDENTIALS", "credentials.json", "CKC_MQTT_PORT", "-1"))
                .security().insecure()).isFalse();
        assertThat(GatewayConfig.fromEnv(Map.of("CKC_INSECURE", "true")).security().insecure()).isTrue();
    }

    @Test
    void aValueThatDoesNotParseNamesItsVariable() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> GatewayConfig.fromEnv(Map.of("CKC_INSECURE", "true", "CKC_MINI_BUFFER", "yes")))
                .hasMessageContaining("CKC_MINI_BUFFER");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> GatewayConfig.fromEnv(Map.of("CKC_INSECURE", "true", "CKC_PING_SAMPLE", "many")))
                .hasMessageContaining("CKC_PING_SAMPLE");
    }

    private static Class<?> declaringClass(Setting setting) {
        for (var field : GatewaySettings.class.getFields()) {
            try {
                if (field.get(null) == setting) {
                    return GatewaySettings.class;
                }
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
        }
        return Object.class;
    }

    /** A valid value other than the default. */
    private static String otherValue(Setting setting, GatewayConfig defaults) {
        String value = setting.defaultValue();
        if (value == null) {
            return setting == GatewaySettings.EVENT_LOOPS ? String.valueOf(defaults.eventLoops() + 1)
                    : setting == GatewaySettings.MQTT_PORT ? String.valueOf(defaults.mqttPort() + 1) : "gw.example.org";
        }
        if (value.equals("true") || value.equals("false")) {
            return String.valueOf(!Boolean.parseBoolean(value));
        }
        if (value.matches("-?\\d+")) {
            return String.valueOf(Integer.parseInt(value) + 1);
        }
        return setting == GatewaySettings.GATEWAY_ID ? "gw-9" : value + "x";
    }
}
