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
                ckc_gateway_retransmissions_total 12.0
                ckc_gateway_retransmissions_total_other 5.0
                """;

        assertThat(GatewayMetricsReader.sum(exposition, "ckc_gateway_connects_refused_total", "reason=\"address_rate\""))
                .isEqualTo(1750.0);
        assertThat(GatewayMetricsReader.sum(exposition, "ckc_gateway_connects_refused_total", "reason=\"flapping\""))
                .isZero();
        assertThat(GatewayMetricsReader.sum(exposition, "ckc_gateway_retransmissions_total", "")).isEqualTo(12.0);
    }

    @Test
    void theKernelsUdpCountersAreReadByName() {
        java.util.List<String> snmp = java.util.List.of(
                "Ip: Forwarding DefaultTTL", "Ip: 1 64",
                "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors",
                "Udp: 35571263 64534 7914 35649610 7913 2097",
                "UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors",
                "UdpLite: 0 0 0 0 0 0");

        assertThat(UdpStatistics.counter(snmp, "RcvbufErrors")).isEqualTo(7913.0);
        assertThat(UdpStatistics.counter(snmp, "Nonexistent")).isNaN();
        assertThat(UdpStatistics.counter(java.util.List.of(), "RcvbufErrors")).isNaN();
    }
}
