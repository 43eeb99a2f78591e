package io.ckc.gateway.core;

import io.ckc.protocol.auth.Grants;
import io.netty.channel.embedded.EmbeddedChannel;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** One shard's pings on Netty's embedded event loop, over sessions with fake links. */
class ShardPingsTest {

    private final EmbeddedChannel loop = new EmbeddedChannel();
    private final GatewayMetrics metrics = new GatewayMetrics("gw-t", new PrometheusRegistry());
    private final ShardSessions sessions = new ShardSessions();
    private final ShardPings pings = new ShardPings(loop.eventLoop(), metrics, sessions);

    @AfterEach
    void noTasksLeft() {
        loop.runPendingTasks();
        assertFalse(loop.finish());
    }

    private List<FakeLink> serving(int count) {
        List<FakeLink> links = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Session session = new Session(UUID.randomUUID(), 1, Grants.ALL, FakeLink::new, SessionShard.nowMs());
            session.announced = true;
            sessions.put(session);
            links.add((FakeLink) session.link);
        }
        return links;
    }

    private static long pinged(List<FakeLink> links) {
        return links.stream().filter(l -> l.calls.contains("ping")).count();
    }

    @Test
    void aWindowPingsARandomSampleOfItsServingNodesAndReportsWhomItPinged() {
        List<FakeLink> links = serving(1_000);
        links.get(0).session.leavingDeadlineMs = SessionShard.nowMs() + 5_000; // handed over: never pinged
        Map<UUID, Integer> timesPinged = new HashMap<>();
        int windows = 200;
        for (int i = 0; i < windows; i++) {
            pings.open(1_000L + i, System.nanoTime(), 1_000, 100);
            PingWindow.Part part = pings.close(1_000L + i, true, 0);
            assertThat(part.connected()).hasSize(999);
            assertThat(part.pingedAtNanos()).as("pinged in window %d", i).hasSize(100)
                    .doesNotContainKey(links.get(0).session.mnId());
            part.pingedAtNanos().keySet().forEach(node -> timesPinged.merge(node, 1, Integer::sum));
        }
        // uniform: each serving node about 20 times in 200 windows of 100 of 999 (binomial, sd 4.2)
        assertThat(timesPinged).hasSize(999);
        assertThat(timesPinged.values()).allSatisfy(times -> assertThat(times).isBetween(2, 45));
    }

    @Test
    void aWindowWithFewerNodesThanTheSamplePingsThemAllAndKeepsTheirPongs() {
        List<FakeLink> links = serving(20);
        pings.open(7L, System.nanoTime(), 1_000, 100);

        assertThat(pinged(links)).isEqualTo(20);
        pings.pong(links.get(0).session, 7L);
        pings.pong(links.get(1).session, 6L); // answers another window
        PingWindow.Part part = pings.close(7L, true, 0);
        pings.pong(links.get(2).session, 7L); // after the close

        assertThat(part.pingedAtNanos()).hasSize(20);
        assertThat(part.arrivalMicros()).containsOnlyKeys(links.get(0).session.mnId());
        assertThat(metrics.latePongs.get()).isEqualTo(2.0);
    }

    @Test
    void pingsLeaveInPacedSlicesAndSkipNodesThatLeftMeanwhile() {
        loop.freezeTime();
        List<FakeLink> links = serving(2 * ShardPings.PING_BURST + 500);
        pings.open(9L, System.nanoTime(), 1_000, 10_000);
        assertThat(pinged(links)).as("the first slice").isEqualTo(ShardPings.PING_BURST);

        List<FakeLink> notYetPinged = links.stream().filter(l -> !l.calls.contains("ping")).toList();
        sessions.remove(notYetPinged.get(0).session); // closed before its slice
        notYetPinged.get(1).session.leavingDeadlineMs = SessionShard.nowMs() + 5_000; // handed over
        loop.advanceTimeBy(ShardPings.PING_SLICE_MS, TimeUnit.MILLISECONDS);
        loop.runScheduledPendingTasks();
        loop.advanceTimeBy(ShardPings.PING_SLICE_MS, TimeUnit.MILLISECONDS);
        loop.runScheduledPendingTasks();

        assertThat(pinged(links)).isEqualTo(links.size() - 2);
        assertThat(pings.close(9L, true, 0).pingedAtNanos()).hasSize(links.size() - 2);
    }

    @Test
    void aShardThatNeverOpenedTheWindowStillReportsItsServingNodes() {
        serving(3);
        PingWindow.Part part = pings.close(11L, true, 0);

        assertThat(part.connected()).hasSize(3);
        assertThat(part.pingedAtNanos()).isEmpty();
    }
}
