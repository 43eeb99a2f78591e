package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CpuTimesTest {

    @Test
    void theCpuOfAStretchIsTheDifferenceOfTwoReadingsOfTheProcessesInBoth() {
        CpuTimes before = new CpuTimes(0, Map.of("gateways", 1_000L, "gone", 50L));
        CpuTimes after = new CpuTimes(2_000_000_000L, Map.of("gateways", 1_500L, "new", 10L));

        assertThat(after.secondsSince(before)).isEqualTo(2.0);
        assertThat(after.cpuMsSince(before)).isEqualTo(Map.of("gateways", 500L));
        assertThat(after.percentSince(before)).isEqualTo(Map.of("gateways", 25.0));
    }

    @Test
    void thisProcessIsReadWhileItRuns() {
        Map<String, Integer> self = Map.of("simulator", (int) ProcessHandle.current().pid());
        CpuTimes first = CpuTimes.now(self);
        CpuTimes later = CpuTimes.now(self);
        while (later.cpuMs().get("simulator").equals(first.cpuMs().get("simulator"))) {
            later = CpuTimes.now(self); // busy until the OS counts more of this process's CPU time
        }
        assertThat(later.cpuMsSince(first).get("simulator")).isPositive();
        assertThat(later.secondsSince(first)).isPositive();
    }
}
