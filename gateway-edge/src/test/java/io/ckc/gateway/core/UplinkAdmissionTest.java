package io.ckc.gateway.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class UplinkAdmissionTest {

    private static final long UPDATE_MS = 100;

    private final UplinkAdmission admission = new UplinkAdmission(250, 2_000, UPDATE_MS);
    private long now = 1_000_000;

    /** Ten deliveries of about this age per window, for {@code ms} of time. */
    private void deliveries(long ageMs, long ms) {
        admission.update(now);
        for (long end = now + ms; now < end; now += UPDATE_MS) {
            for (int i = 0; i < 10; i++) {
                admission.age(ageMs + i - 5);
            }
            admission.update(now + UPDATE_MS);
        }
    }

    @Test
    void freshDeliveriesRefuseNothing() {
        deliveries(40, 60_000);
        assertThat(admission.refuseProbability()).isZero();
        assertThat(admission.admit(0.0)).isTrue();
        assertThat(admission.medianAgeMs()).isBetween(35L, 45L);
    }

    @Test
    void aStallShorterThanTheBurstAllowanceRefusesNothing() {
        deliveries(40, 5_000);
        deliveries(3_000, 1_800); // a rescale's restart: old deliveries for 1.8 s
        deliveries(40, 5_000);
        assertThat(admission.refuseProbability()).isZero();
    }

    @Test
    void aBacklogBeyondTheAllowanceRefusesMoreTheOlderItGets() {
        deliveries(40, 5_000);
        deliveries(1_000, 2_000);
        assertThat(admission.refuseProbability()).as("within the allowance").isZero();
        deliveries(1_000, 1_000);
        double after1s = admission.refuseProbability();
        assertThat(after1s).isBetween(0.1, 0.99);
        assertThat(admission.admit(after1s / 2)).isFalse();
        assertThat(admission.admit(Math.nextDown(1.0))).isTrue();
        deliveries(3_000, 2_000);
        assertThat(admission.refuseProbability()).as("three times as old: all refused").isEqualTo(1.0);
    }

    @Test
    void aBacklogThatDrainsAfterAnOutageRefusesNothing() {
        deliveries(40, 5_000);
        for (long age = 12_000; age > 40; age -= 80) { // 15 s to catch up on a 12 s outage: 7.5 times the allowance
            deliveries(age, UPDATE_MS);
        }
        assertThat(admission.refuseProbability()).isZero();
    }

    @Test
    void onceTheBacklogIsGoneItAcceptsEverythingAgain() {
        deliveries(40, 5_000);
        deliveries(5_000, 10_000);
        assertThat(admission.refuseProbability()).isGreaterThan(0.5);
        deliveries(60, 30_000);
        assertThat(admission.refuseProbability()).isZero();
    }

    @Test
    void withoutDeliveriesTheRefusalsFadeOut() {
        deliveries(5_000, 10_000);
        double refusing = admission.refuseProbability();
        assertThat(refusing).isGreaterThan(0.5);
        for (int i = 0; i < 100; i++) {
            now += UPDATE_MS;
            admission.update(now);
        }
        assertThat(admission.refuseProbability()).isLessThan(refusing * 0.2);
    }

    @Test
    void aTargetOfZeroNeverRefuses() {
        UplinkAdmission off = new UplinkAdmission(0, 0, UPDATE_MS);
        for (int i = 0; i < 1_000; i++) {
            off.age(60_000);
            off.update(now + i * UPDATE_MS);
        }
        assertThat(off.refuseProbability()).isZero();
    }
}
