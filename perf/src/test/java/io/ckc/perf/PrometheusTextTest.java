package io.ckc.perf;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PrometheusTextTest {

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
        List<PrometheusText.Sample> samples = PrometheusText.parse(exposition);

        assertThat(PrometheusText.sum(samples, "ckc_gateway_connects_refused_total", "reason", "address_rate"))
                .isEqualTo(1750.0);
        assertThat(PrometheusText.sum(samples, "ckc_gateway_connects_refused_total", "reason", "flapping"))
                .isZero();
        assertThat(PrometheusText.sum(samples, "ckc_gateway_retransmissions_total")).isEqualTo(12.0);
    }

    @Test
    void theTextExpositionIsParsedWithItsEscapes() {
        List<PrometheusText.Sample> samples = PrometheusText.parse("""
                # HELP flink_jobmanager_job_lastCheckpointFullSize lastCheckpointFullSize (scope: jobmanager_job)
                # TYPE flink_jobmanager_job_lastCheckpointFullSize gauge
                flink_jobmanager_job_lastCheckpointFullSize{job_id="ab12",job_name="ckc_poa_manager",} 358015.0
                flink_jobmanager_numRegisteredTaskManagers 2.0

                up{note="a \\\\ b, \\"c\\"\\nd",x="}"} 1e3 1700000000000
                """);
        assertThat(samples).hasSize(3);
        assertThat(samples.get(0).name()).isEqualTo("flink_jobmanager_job_lastCheckpointFullSize");
        assertThat(samples.get(0).labels()).containsEntry("job_id", "ab12").containsEntry("job_name", "ckc_poa_manager");
        assertThat(samples.get(0).named("job_name")).isEqualTo("ckc-poa-manager");
        assertThat(samples.get(0).value()).isEqualTo(358015.0);
        assertThat(samples.get(1).labels()).isEmpty();
        assertThat(samples.get(1).value()).isEqualTo(2.0);
        assertThat(samples.get(2).labels()).containsEntry("note", "a \\ b, \"c\"\nd").containsEntry("x", "}");
        assertThat(samples.get(2).value()).isEqualTo(1000.0);
    }

    @Test
    void aLineThatIsNotASampleIsAClearError() {
        assertThatThrownBy(() -> PrometheusText.parse("up 1\nckc_gateway_sessions\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("not a Prometheus sample: 'ckc_gateway_sessions'");
        assertThatThrownBy(() -> PrometheusText.parse("up{job=\"a\" 1\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'up{job=\"a\" 1'");
    }
}
