package io.ckc.gateway.core;

import io.ckc.protocol.records.Context;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** A shard's connect admission and its context refresh, each on its own. */
class AdmissionAndContextTest {

    private final ManualClock clock = new ManualClock();

    @Test
    void aShardAdmitsItsShareOfTheRateAndSavesUpAtMostASecond() {
        ConnectAdmission admission = new ConnectAdmission(2_000, 2, 10_000, clock); // 1,000 a second for this shard

        int admitted = 0;
        while (admission.admit()) {
            admitted++;
        }
        assertThat(admitted).isEqualTo(1_000);
        clock.advanceMs(1);
        assertThat(admission.admit()).as("one more a millisecond later").isTrue();
        assertThat(admission.admit()).isFalse();
        clock.advanceMs(60_000);
        int later = 0;
        while (admission.admit()) {
            later++;
        }
        assertThat(later).as("a long pause saves up a second's worth, no more").isEqualTo(1_000);
    }

    @Test
    void aShardOfThreeGetsAThirdOfTheRateExactly() {
        ConnectAdmission admission = new ConnectAdmission(2_000, 3, 10_000, clock);
        int first = 0;
        while (admission.admit()) {
            first++;
        }
        assertThat(first).as("a second's worth at first").isEqualTo(666);
        clock.advanceMs(300); // 200 tokens: 2,000 every 3 s
        int soon = 0;
        while (admission.admit()) {
            soon++;
        }
        assertThat(soon).isEqualTo(200);
        clock.advanceMs(1_500); // 1,000 tokens for this shard's 666.67 a second
        int admitted = 0;
        while (admission.admit()) {
            admitted++;
        }
        assertThat(admitted).as("capped at a second's worth").isEqualTo(666);
    }

    @Test
    void sessionsWaitingForKafkaHoldFurtherAdmissionsBack() {
        ConnectAdmission admission = new ConnectAdmission(1_000, 1, 2, clock);

        assertThat(admission.admit()).isTrue();
        admission.opening();
        assertThat(admission.admit()).isTrue();
        admission.opening();
        assertThat(admission.admit()).as("two wait for their Connected event").isFalse();
        admission.opened();
        assertThat(admission.admit()).isTrue();
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

    @Test
    void nodesThatConnectTogetherRefreshSpreadOverThePeriod() {
        ContextRefresh refresh = new ContextRefresh(30_000);
        Context here = Context.position(1, 2);
        int[] refreshesPerSecond = new int[30];
        for (int i = 0; i < 2_000; i++) {
            UUID node = UUID.randomUUID();
            long writtenAt = refresh.writtenAt(null, node, 100_000); // every node's first message in the same ms
            assertThat(writtenAt).isBetween(70_001L, 100_000L);
            long refreshAt = writtenAt + 30_000;
            assertThat(refresh.due(here, here, writtenAt, refreshAt - 1)).isFalse();
            assertThat(refresh.due(here, here, writtenAt, refreshAt)).isTrue();
            refreshesPerSecond[(int) ((refreshAt - 100_000 - 1) / 1_000)]++;
            assertThat(refresh.writtenAt(here, node, refreshAt)).as("later ones at their time").isEqualTo(refreshAt);
        }
        assertThat(java.util.Arrays.stream(refreshesPerSecond).max().getAsInt()).as("about 67 a second, not 2,000 in one")
                .isLessThan(140);
    }
}
