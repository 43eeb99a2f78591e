package io.ckc.jobs;

import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.jobs.echo.EchoJob;
import io.ckc.jobs.groups.GroupDefinerJob;
import io.ckc.jobs.poa.PoaManagerJob;
import org.apache.flink.util.ParameterTool;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The stack's jobs are declared once, with the names the jobs give themselves on a cluster. */
class JobCatalogTest {

    @Test
    void theStackRunsDeliveryThePoaManagerTheEchoAppAndTheGroupDefinerUnderTheirOwnNames() {
        List<JobCatalog.Launch> jobs = JobCatalog.stack(ParameterTool.fromArgs(
                new String[] {"--delivery-parallelism", "2", "--echo-parallelism", "3"}));
        assertThat(jobs).extracting(JobCatalog.Launch::flinkName).containsExactly(DeliveryJob.NAME,
                PoaManagerJob.NAME, EchoJob.NAME, GroupDefinerJob.NAME_PREFIX + "grid-cell");
        assertThat(jobs).extracting(JobCatalog.Launch::parallelism).containsExactly(2, 1, 3, 1);
        assertThat(jobs.get(3).params(ParameterTool.fromArgs(new String[] {"--bootstrap", "k:9092"})).toMap())
                .containsEntry("selection", "grid-cell").containsEntry("bootstrap", "k:9092")
                .containsEntry("parallelism", "1");
    }

    @Test
    void withoutTheEchoAppOrADefinerThereAreTwoJobs() {
        assertThat(JobCatalog.stack(ParameterTool.fromArgs(new String[] {"--no-echo", "--group-selection", "none"})))
                .extracting(JobCatalog.Launch::name).containsExactly("delivery", "poa-manager");
    }

    @Test
    void whereKafkaAuthenticatesEachJobIsItsOwnPrincipal() {
        ParameterTool stack = ParameterTool.fromArgs(new String[] {"--kafka-credentials", "/tmp/creds"});
        List<JobCatalog.Launch> jobs = JobCatalog.stack(stack);
        assertThat(jobs).extracting(job -> job.params(stack).get("kafka-client-config")).containsExactly(
                "/tmp/creds/ckc-delivery.properties", "/tmp/creds/ckc-poa-manager.properties",
                "/tmp/creds/ckc-echo.properties", "/tmp/creds/ckc-group-definers.properties");
        assertThat(jobs.get(0).args(stack)).contains("--kafka-client-config");
        ParameterTool open = ParameterTool.fromArgs(new String[0]);
        assertThat(jobs.get(0).params(open).has("kafka-client-config")).isFalse();
    }
}
