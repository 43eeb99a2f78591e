package io.ckc.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FloodCommandTest {

    @Test
    void aMetricIsSummedOverTheSamplesWhoseLabelsMatch() {
        String exposition = """
                # HELP ckc_gateway_connects_refused_total New sessions refused, by reason
                # TYPE ckc_gateway_connects_refused_total counter
                ckc_gateway_connects_refused_total{gateway="gw-1",reason="address_rate"} 1500.0
                ckc_gateway_connects_refused_total{gateway="gw-1",reason="busy"} 7.0
                ckc_gateway_connects_refused_total{gateway="gw-2",reason="address_rate"} 2.5E2
                ckc_gateway_connects_refused_created{gateway="gw-1",reason="address_rate"} 1.7E9
                """;

        assertThat(FloodCommand.sum(exposition, "ckc_gateway_connects_refused_total", "reason=\"address_rate\""))
                .isEqualTo(1750.0);
        assertThat(FloodCommand.sum(exposition, "ckc_gateway_connects_refused_total", "reason=\"flapping\""))
                .isZero();
    }
}
