package io.ckc.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FloodCommandTest {

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
