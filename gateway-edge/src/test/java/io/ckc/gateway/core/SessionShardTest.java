package io.ckc.gateway.core;

import io.ckc.protocol.auth.Grants;
import io.ckc.gateway.GatewayConfig;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import io.netty.channel.embedded.EmbeddedChannel;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** One shard of the gateway core on Netty's embedded event loop, with a fake publisher and fake links. */
class SessionShardTest {

    private final EmbeddedChannel loop = new EmbeddedChannel();
    private final FakePublisher publisher = new FakePublisher(Set.of("echo"));
    private final GatewayMetrics metrics = new GatewayMetrics("gw-t", new PrometheusRegistry());
    private GatewayConfig config = GatewayConfig.forTest("gw-t", "unused:9092", Topics.DEFAULT);
    private final UUID node = UUID.randomUUID();

    @AfterEach
    void noTasksLeft() {
        loop.runPendingTasks();
        assertFalse(loop.finish());
    }

    private GatewayCore core() {
        return new GatewayCore(config.core(), publisher, metrics, List.of(loop.eventLoop()));
    }

    /** A node asks for a session, over a protocol without addresses. */
    private ConnectAnswer admit(SessionShard shard) {
        return shard.admit(node, null);
    }

    private FakeLink open(SessionShard shard, UUID mnId, long epoch) {
        Session session = shard.open(mnId, epoch, Grants.ALL, FakeLink::new);
        loop.runPendingTasks();
        return (FakeLink) session.link();
    }

    private static Unicast unicast(String id, String recipient, boolean receipt) {
        return new Unicast(id, "app", recipient, id.getBytes(), null, System.currentTimeMillis(), receipt);
    }

    @Test
    void aNodeHearsItIsConnectedOnlyOnceItsConnectedEventIsInKafka() {
        SessionShard shard = core().shardOf(node);
        publisher.hold();
        Session session = shard.open(node, 1, Grants.ALL, FakeLink::new);
        loop.runPendingTasks();
        FakeLink link = (FakeLink) session.link();

        assertThat(publisher.of(MnEvent.class)).singleElement()
                .satisfies(e -> assertThat(e.type()).isEqualTo(MnEvent.Type.CONNECTED));
        assertThat(link.calls).isEmpty();
        assertThat(shard.serving()).isZero();

        publisher.completeHeld();
        loop.runPendingTasks();
        assertThat(link.calls).containsExactly("accepted gw-t");
        assertThat(shard.serving()).isOne();
    }

    @Test
    void newSessionsWaitWhileTooManyConnectedEventsAreUnwrittenAndComeNoFasterThanTheRate() {
        // one shard: 1,000 a second, a second's worth saved up
        config = config.toBuilder().admitPerSecond(1_000).admitPending(2).build();
        SessionShard shard = core().shardOf(node);
        publisher.hold();
        assertThat(admit(shard)).isEqualTo(ConnectAnswer.ADMITTED);
        shard.open(UUID.randomUUID(), 1, Grants.ALL, FakeLink::new);
        assertThat(admit(shard)).isEqualTo(ConnectAnswer.ADMITTED);
        shard.open(UUID.randomUUID(), 1, Grants.ALL, FakeLink::new);
        loop.runPendingTasks();
        assertThat(admit(shard)).as("two Connected events unwritten").isEqualTo(ConnectAnswer.BUSY);
        assertThat(metrics.connectsRefused.labelValues("busy").get()).isEqualTo(1.0);

        publisher.completeHeld();
        loop.runPendingTasks();
        int admitted = 0;
        while (admit(shard) == ConnectAnswer.ADMITTED) { // nothing pending now: only the token bucket limits
            admitted++;
            if (admitted > 2_000) {
                break;
            }
        }
        assertThat(admitted).as("the second's worth of tokens, less the two spent").isBetween(990, 1_010);
        assertThat(metrics.connectsRefused.labelValues("busy").get()).isEqualTo(2.0);
    }

    @Test
    void aNodeWhoseSessionsOpenTooOftenIsRefusedAsFlappingWhileOthersAreNot() {
        config = config.toBuilder().limits(new RateLimits(0, 0, 0, 0, 2, 60_000, 60_000)).build();
        SessionShard shard = core().shardOf(node);
        for (int epoch = 1; epoch <= 3; epoch++) {
            assertThat(admit(shard)).isEqualTo(ConnectAnswer.ADMITTED);
            open(shard, node, epoch);
        }
        assertThat(metrics.flappingNodes.get()).as("the third session within the window").isEqualTo(1.0);

        assertThat(admit(shard)).isEqualTo(ConnectAnswer.FLAPPING);
        assertThat(metrics.connectsRefused.labelValues("flapping").get()).isEqualTo(1.0);
        assertThat(shard.admit(UUID.randomUUID(), null)).isEqualTo(ConnectAnswer.ADMITTED);
        assertThat(shard.limitedNodesRemembered()).isOne();
    }

    @Test
    void deliveriesNotAcknowledgedWhenTheSessionBreaksGoToUnsentInOrderAndReceiptsFollowAcks() {
        GatewayCore core = core();
        SessionShard shard = core.shardOf(node);
        FakeLink link = open(shard, node, 3);
        for (String id : List.of("m1", "m2", "m3")) {
            core.command(new GatewayCommand.Deliver(unicast(id, node.toString(), id.equals("m1")), 3, null));
        }
        assertThat(core.downlinkBacklog()).as("on their way to the loop").isEqualTo(3);
        loop.runPendingTasks();
        assertThat(link.delivered).hasSize(3);
        assertThat(core.downlinkBacklog()).as("sent, not acknowledged").isEqualTo(3);

        shard.delivered(shard.find(node, 3), link.delivered.get(0));
        assertThat(core.downlinkBacklog()).isEqualTo(2);
        loop.runPendingTasks(); // the receipts of a pass of the loop go out once it is over
        assertThat(publisher.of(Receipt.class)).singleElement()
                .satisfies(r -> assertThat(r.outcome()).isEqualTo(Receipt.Outcome.DELIVERED));

        shard.fail(shard.find(node, 3), "broken");
        assertThat(link.closed).isTrue();
        assertThat(publisher.of(UnsentMessage.class)).extracting(u -> u.unicast().messageId())
                .containsExactly("m2", "m3");
        assertThat(publisher.of(UnsentMessage.class)).allMatch(u -> u.reason() == UnsentMessage.Reason.CONNECTION_BROKEN
                && u.epoch() == 3);
        assertThat(publisher.of(MnEvent.class)).extracting(MnEvent::type)
                .containsExactly(MnEvent.Type.CONNECTED, MnEvent.Type.DISCONNECTED);
        assertThat(shard.current(node)).isNull();
        assertThat(shard.serving()).isZero();
        assertThat(core.downlinkBacklog()).as("what the closed session held went back to the core").isZero();
    }

    @Test
    void aNewerEpochReplacesTheSessionAndSendsItsPendingDeliveriesBackAsReplaced() {
        GatewayCore core = core();
        SessionShard shard = core.shardOf(node);
        FakeLink old = open(shard, node, 1);
        core.command(new GatewayCommand.Deliver(unicast("m1", node.toString(), false), 1, null));
        loop.runPendingTasks();

        FakeLink replacement = open(shard, node, 2);

        assertThat(old.closed).isTrue();
        assertThat(replacement.calls).containsExactly("accepted gw-t");
        assertThat(publisher.of(UnsentMessage.class)).singleElement()
                .satisfies(u -> assertThat(u.reason()).isEqualTo(UnsentMessage.Reason.SESSION_REPLACED));
        assertThat(shard.find(node, 1)).isNull();
        assertThat(shard.find(node, 2)).isNotNull();
        assertThat(shard.serving()).isOne();
    }

    @Test
    void deliveriesForNoSessionGoToUnsentPastTheirDeadlineToTheLinkWithItAndABadRecipientIsADeadLetter() {
        GatewayCore core = core();
        core.command(new GatewayCommand.Deliver(unicast("gone", node.toString(), false), 1, null));
        UUID here = UUID.randomUUID();
        FakeLink link = open(core.shardOf(here), here, 1);
        long past = System.currentTimeMillis() - 1;
        core.command(new GatewayCommand.Deliver(unicast("late", here.toString(), false), 1, past));
        core.command(new GatewayCommand.Deliver(unicast("odd", "not-a-node", false), 1, null));
        loop.runPendingTasks();

        assertThat(link.deadlines).as("the link asks the node, sending no content").containsExactly(past);
        assertThat(publisher.of(UnsentMessage.class)).extracting(UnsentMessage::reason)
                .containsExactly(UnsentMessage.Reason.NOT_CONNECTED);
        assertThat(metrics.deadLetters.get()).isEqualTo(1.0);
    }

    @Test
    void withTheMiniBufferTheLastTwoAcknowledgedGoToUnsentWhenTheConnectionFails() {
        config = config.toBuilder().miniBuffer(true).build();
        GatewayCore core = core();
        SessionShard shard = core.shardOf(node);
        FakeLink link = open(shard, node, 1);
        for (String id : List.of("a1", "a2", "a3")) {
            core.command(new GatewayCommand.Deliver(unicast(id, node.toString(), false), 1, null));
        }
        loop.runPendingTasks();
        link.delivered.forEach(id -> shard.delivered(shard.find(node, 1), id));

        shard.fail(shard.find(node, 1), "timeout");

        assertThat(publisher.of(UnsentMessage.class)).extracting(u -> u.unicast().messageId())
                .containsExactly("a2", "a3");
    }

    @Test
    void aNodeThatAcknowledgedAHandoverIsNoLongerCountedAsServing() {
        SessionShard shard = core().shardOf(node);
        open(shard, node, 1);
        assertThat(shard.serving()).isOne();

        shard.leaving(shard.find(node, 1));
        shard.leaving(shard.find(node, 1)); // a repeated acknowledgement counts once

        assertThat(shard.serving()).isZero();
        shard.disconnect(shard.find(node, 1));
        assertThat(shard.serving()).isZero();
        assertThat(metrics.sessions.get()).isZero();
    }

    @Test
    void theSweepEndsTheSilentSessionAndTheOneHandedOverPastItsGraceAndKeepsTheRest() {
        SessionShard shard = core().shard(0);
        UUID silent = UUID.randomUUID();
        UUID handedOver = UUID.randomUUID();
        UUID leavingSoon = UUID.randomUUID();
        for (UUID mnId : List.of(node, silent, handedOver, leavingSoon)) {
            open(shard, mnId, 1);
        }
        long later = SessionShard.nowMs() + config.sessionTimeoutMs() + 2_000; // silent has been silent since
        for (UUID heard : List.of(node, handedOver, leavingSoon)) {
            shard.find(heard, 1).lastHeardMs = later - 1_000;
        }
        shard.leaving(shard.find(handedOver, 1));
        shard.find(handedOver, 1).leavingDeadlineMs = later - 1;
        shard.leaving(shard.find(leavingSoon, 1));
        shard.find(leavingSoon, 1).leavingDeadlineMs = later + 1_000; // its grace still runs

        shard.sweep(later);
        loop.runPendingTasks();

        assertThat(shard.current(silent)).isNull();
        assertThat(shard.current(handedOver)).isNull();
        assertThat(shard.current(node)).isNotNull();
        assertThat(shard.current(leavingSoon)).isNotNull();
        assertThat(metrics.disconnects.labelValues("timeout").get()).isOne();
        assertThat(metrics.disconnects.labelValues("handed-over").get()).isOne();
        assertThat(publisher.of(MnEvent.class)).filteredOn(e -> e.type() == MnEvent.Type.DISCONNECTED)
                .extracting(MnEvent::mnId).containsExactlyInAnyOrder(silent.toString(), handedOver.toString());
    }
}
