package io.ckc.gateway;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GatewayConfigTest {

    @Test
    void withoutAListOfIdsAProcessHostsTheOneGatewayOfItsId() {
        List<GatewayConfig> hosted = GatewayConfig.hostedFromEnv(Map.of("CKC_INSECURE", "true", "CKC_GATEWAY_ID", "gw-7", "CKC_UDP_PORT", "6000"));

        assertThat(hosted).singleElement().satisfies(c -> {
            assertThat(c.gatewayId()).isEqualTo("gw-7");
            assertThat(c.udpPort()).isEqualTo(6000);
        });
    }

    @Test
    void eachHostedGatewayListensAndServesMetricsOnThePortsAboveTheOneBeforeIt() {
        List<GatewayConfig> hosted = GatewayConfig.hostedFromEnv(Map.of("CKC_INSECURE", "true", "CKC_GATEWAY_IDS", "gw-1, gw-2,gw-3",
                "CKC_UDP_PORT", "5500", "CKC_METRICS_PORT", "9400", "CKC_SESSION_TIMEOUT_MS", "7000",
                "CKC_MQTT_PORT", "1883", "CKC_MQTT_WS_PORT", "8083"));

        assertThat(hosted).extracting(GatewayConfig::gatewayId).containsExactly("gw-1", "gw-2", "gw-3");
        assertThat(hosted).extracting(GatewayConfig::udpPort).containsExactly(5500, 5501, 5502);
        assertThat(hosted).extracting(GatewayConfig::metricsPort).containsExactly(9400, 9401, 9402);
        assertThat(hosted).extracting(GatewayConfig::mqttPort).containsExactly(1883, 1884, 1885);
        assertThat(hosted).extracting(GatewayConfig::mqttWebSocketPort).containsExactly(8083, 8084, 8085);
        assertThat(hosted).extracting(GatewayConfig::sessionTimeoutMs).containsOnly(7000L);
    }

    @Test
    void mqttIsOnTheTlsPortWhereNodesAuthenticateAndOnThePlainOneWhereTheyDoNot() {
        assertThat(GatewayConfig.fromEnv(Map.of("CKC_INSECURE", "true")).mqttPort()).isEqualTo(1883);
        assertThat(GatewayConfig.fromEnv(Map.of("CKC_CREDENTIALS", "/no/such/store.json", "CKC_TLS_KEYSTORE",
                "/no/such/keystore.p12")).mqttPort()).as("MQTT over TLS").isEqualTo(8883);
        assertThat(GatewayConfig.fromEnv(Map.of("CKC_INSECURE", "true", "CKC_MQTT_PORT", "2000")).mqttPort()).isEqualTo(2000);
    }

    @Test
    void anyFreePortAndNoMetricsStayAsTheyAreForEveryHostedGateway() {
        List<GatewayConfig> hosted = GatewayConfig.hostedFromEnv(Map.of("CKC_INSECURE", "true", "CKC_GATEWAY_IDS", "a,b",
                "CKC_UDP_PORT", "0", "CKC_METRICS_PORT", "-1", "CKC_MQTT_WS_PORT", "-1"));

        assertThat(hosted).extracting(GatewayConfig::udpPort).containsOnly(0);
        assertThat(hosted).extracting(GatewayConfig::mqttWebSocketPort).containsOnly(-1);
        assertThat(hosted).extracting(GatewayConfig::metricsPort).containsOnly(-1);
    }

    @Test
    void aGatewayNamedTwiceOrAnInvalidIdIsAClearError() {
        assertThatThrownBy(() -> GatewayConfig.hostedFromEnv(Map.of("CKC_INSECURE", "true", "CKC_GATEWAY_IDS", "gw-1,gw-1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> GatewayConfig.hostedFromEnv(Map.of("CKC_INSECURE", "true", "CKC_GATEWAY_IDS", "gw-1,,gw-2")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a valid gateway id");
    }
}
