package io.ckc.jobs.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When the CKC jobs are back after a fault, read from the jobs' overview as the JobManager serves it. */
class FlinkRestOverviewTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static String job(String name, String state, long lastModification, int running, int total) {
        return String.format("{\"jid\":\"%s\",\"name\":\"%s\",\"state\":\"%s\",\"last-modification\":%d,"
                + "\"tasks\":{\"running\":%d,\"initializing\":%d,\"total\":%d}}", name.hashCode(), name, state,
                lastModification, running, total - running, total);
    }

    private static JsonNode overview(String... jobs) throws Exception {
        return MAPPER.readTree("{\"jobs\":[" + String.join(",", jobs) + "]}");
    }

    @Test
    void backOnlyOnceEveryTaskRunsAndAJobChangedAfterTheFault() throws Exception {
        long fault = 1_000_000;
        // before the JobManager noticed: all running, nothing changed since the fault
        assertThat(FlinkRest.backSince(overview(job("ckc-delivery", "RUNNING", fault - 5_000, 2, 2),
                job("ckc-echo", "RUNNING", fault - 9_000, 2, 2)), fault)).isFalse();
        // restarting: one job's tasks are initializing
        assertThat(FlinkRest.backSince(overview(job("ckc-delivery", "RUNNING", fault + 800, 1, 2),
                job("ckc-echo", "RUNNING", fault - 9_000, 2, 2)), fault)).isFalse();
        assertThat(FlinkRest.backSince(overview(job("ckc-delivery", "RESTARTING", fault + 300, 0, 2)), fault))
                .isFalse();
        // back: every task runs, and the restarted job changed after the fault
        assertThat(FlinkRest.backSince(overview(job("ckc-delivery", "RUNNING", fault + 1_700, 2, 2),
                job("ckc-echo", "RUNNING", fault - 9_000, 2, 2)), fault)).isTrue();
        // jobs that are not CKC's, or ended, do not count; no CKC job at all is not back
        assertThat(FlinkRest.backSince(overview(job("ckc-delivery", "RUNNING", fault + 1_700, 2, 2),
                job("someone-else", "RUNNING", fault, 0, 3), job("ckc-old", "CANCELED", fault, 0, 2)), fault))
                .isTrue();
        assertThat(FlinkRest.backSince(overview(job("someone-else", "RUNNING", fault + 5, 1, 1)), fault)).isFalse();
        assertThat(FlinkRest.backSince(overview(job("ckc-delivery", "RUNNING", 5, 2, 2)), 0))
                .as("all running, with no fault to have changed since").isTrue();
    }

    private static JsonNode details(String state, String... vertices) throws Exception {
        return MAPPER.readTree("{\"state\":\"" + state + "\",\"vertices\":[" + String.join(",", vertices) + "]}");
    }

    private static String vertex(String name, String status, long written) {
        return String.format("{\"name\":\"%s\",\"status\":\"%s\",\"metrics\":{\"write-records\":%d}}", name,
                status, written);
    }

    @Test
    void aJobRunsIdleWhenEveryVertexRunsAndNoSourceEmittedARecord() throws Exception {
        assertThat(FlinkRest.runsIdle(details("RUNNING", vertex("Source: kafka: to-mn", "RUNNING", 0),
                vertex("route to gateway", "RUNNING", 0)))).isTrue();
        assertThat(FlinkRest.runsIdle(details("RUNNING", vertex("Source: kafka: to-mn", "RUNNING", 12),
                vertex("route to gateway", "RUNNING", 0)))).as("its source emitted records").isFalse();
        assertThat(FlinkRest.runsIdle(details("RUNNING", vertex("Source: kafka: to-mn", "RUNNING", 0),
                vertex("route to gateway", "INITIALIZING", 0)))).as("a vertex not running yet").isFalse();
        assertThat(FlinkRest.runsIdle(details("RESTARTING", vertex("Source: kafka: to-mn", "RUNNING", 0))))
                .isFalse();
        assertThat(FlinkRest.runsIdle(details("RUNNING"))).as("no vertices").isFalse();
    }
}
