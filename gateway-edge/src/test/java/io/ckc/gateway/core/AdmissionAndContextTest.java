package io.ckc.gateway.core;

import io.ckc.protocol.records.Context;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A shard's connect admission and its context refresh, each on its own. */
class AdmissionAndContextTest {

    @Test
    void aShardAdmitsItsShareOfTheRateAndSavesUpAtMostASecond() {
        ConnectAdmission admission = new ConnectAdmission(2_000, 2, 10_000, 0); // 1,000 a second for this shard

        int admitted = 0;
        while (admission.admit(0)) {
            admitted++;
        }
        assertThat(admitted).isEqualTo(1_000);
        assertThat(admission.admit(1)).as("one more a millisecond later").isTrue();
        assertThat(admission.admit(1)).isFalse();
        assertThat(admission.admit(60_000)).isTrue();
        int later = 1;
        while (admission.admit(60_000)) {
            later++;
        }
        assertThat(later).as("a long pause saves up a second's worth, no more").isEqualTo(1_000);
    }

    @Test
    void sessionsWaitingForKafkaHoldFurtherAdmissionsBack() {
        ConnectAdmission admission = new ConnectAdmission(1_000, 1, 2, 0);

        assertThat(admission.admit(0)).isTrue();
        admission.opening();
        assertThat(admission.admit(0)).isTrue();
        admission.opening();
        assertThat(admission.admit(0)).as("two wait for their Connected event").isFalse();
        admission.opened();
        assertThat(admission.admit(0)).isTrue();
    }

    @Test
    void aContextIsWrittenWhenItChangesAndAnUnchangedOneOnlyAfterTheRefresh() {
        ContextRefresh refresh = new ContextRefresh(30_000);
        Context here = Context.position(1, 2);

        assertThat(refresh.due(here, null, 0, 0)).as("the first").isTrue();
        assertThat(refresh.due(here, here, 0, 29_999)).isFalse();
        assertThat(refresh.due(here, here, 0, 30_000)).isTrue();
        assertThat(refresh.due(Context.position(1, 3), here, 0, 1)).as("moved").isTrue();
        assertThat(new ContextRefresh(0).due(here, here, 0, 1)).as("0: every one").isTrue();
    }
}
