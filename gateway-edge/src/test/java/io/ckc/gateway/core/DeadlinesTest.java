package io.ckc.gateway.core;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The timer wheel of the gateway's session and DTLS timeouts: due on time, never before, each looked at rarely. */
class DeadlinesTest {

    private final Map<String, Long> deadline = new HashMap<>();
    private final Set<String> present = new HashSet<>();
    private final AtomicInteger looks = new AtomicInteger();
    private final Deadlines<String> wheel = new Deadlines<>(item -> {
        looks.incrementAndGet();
        return deadline.get(item);
    }, present::contains);

    private void watch(String item, long deadlineMs, long nowMs) {
        deadline.put(item, deadlineMs);
        present.add(item);
        wheel.add(item, nowMs);
    }

    /** Calls the wheel once a second from {@code fromMs} to {@code toMs}: when each item came due. */
    private Map<String, Long> run(long fromMs, long toMs) {
        Map<String, Long> dueAt = new HashMap<>();
        for (long now = fromMs; now <= toMs; now += 1_000) {
            for (String item : wheel.due(now)) {
                assertThat(dueAt.put(item, now)).as("due once").isNull();
            }
        }
        return dueAt;
    }

    @Test
    void anItemIsDueWithinASecondOfItsDeadlineAndNotBefore() {
        long start = 1_000_000;
        watch("quiet", start + 30_000, start);
        watch("far", start + 200_500, start); // more than a turn of the wheel away

        Map<String, Long> dueAt = run(start, start + 250_000);

        assertThat(dueAt.get("quiet")).isBetween(start + 30_000, start + 31_000);
        assertThat(dueAt.get("far")).isBetween(start + 200_500, start + 201_500);
        assertThat(wheel.size()).isZero();
    }

    @Test
    void aSweepLateOrAfterALongPauseFindsWhatCameDueMeanwhile() {
        watch("before-the-first-sweep", 30_000, 0);
        assertThat(wheel.due(40_000)).containsExactly("before-the-first-sweep");

        watch("paused-over", 50_000 + 30_000, 50_000);
        assertThat(wheel.due(50_000 + 500_000)).as("a pause longer than a turn").containsExactly("paused-over");
    }

    @Test
    void anItemHeardAgainIsDueAtItsNewDeadlineAndOneThatLeftNever() {
        long start = 5_000;
        watch("heard", start + 30_000, start);
        watch("gone", start + 30_000, start);
        present.remove("gone");
        List<String> early = new ArrayList<>();
        for (long now = start; now < start + 20_000; now += 1_000) {
            early.addAll(wheel.due(now));
        }
        deadline.put("heard", start + 50_000); // a datagram moved its deadline

        Map<String, Long> dueAt = run(start + 20_000, start + 60_000);

        assertThat(early).isEmpty();
        assertThat(dueAt).containsOnlyKeys("heard");
        assertThat(dueAt.get("heard")).isBetween(start + 50_000, start + 51_000);
        assertThat(wheel.size()).isZero();
    }

    @Test
    void eachItemIsLookedAtAboutOncePerDeadlineNotOnEverySweep() {
        long start = 0;
        for (int i = 0; i < 1_000; i++) {
            watch("node-" + i, start + 30_000 + i * 20L, start);
        }
        looks.set(0);
        long now = start;
        for (int round = 0; round < 4; round++) { // heard every 30 s: never due
            long heardAt = now;
            deadline.replaceAll((item, d) -> heardAt + 30_000 + Long.parseLong(item.substring(5)) * 20L);
            for (int s = 0; s < 30; s++, now += 1_000) {
                assertThat(wheel.due(now)).isEmpty();
            }
        }

        // 1,000 items over 120 s of one-second sweeps: 120,000 looks if each were looked at on every sweep
        assertThat(looks.get()).isLessThanOrEqualTo(1_000 * 5);
        assertThat(wheel.size()).isEqualTo(1_000);
    }
}
