package io.ckc.gateway.core;

import io.ckc.protocol.auth.Grants;
import io.ckc.gateway.GatewayConfig;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.ReceiptBatch;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** One shard's downlink over a session with a fake link and a fake publisher. */
class ShardDownlinkTest {

    private final FakePublisher publisher = new FakePublisher(Set.of("echo"));
    private final GatewayMetrics metrics = new GatewayMetrics("gw-t", new PrometheusRegistry());
    private final GatewayConfig config = GatewayConfig.forTest("gw-t", "unused:9092", Topics.DEFAULT);
    private final Session session = new Session(UUID.randomUUID(), 3, Grants.ALL, FakeLink::new, SessionShard.nowMs());
    private final FakeLink link = (FakeLink) session.link;

    /** What the shard's loop runs once the pass that queued it is over. */
    private final List<Runnable> loopTasks = new ArrayList<>();

    private ShardDownlink downlink(boolean miniBuffer) {
        return new ShardDownlink(config.toBuilder().miniBuffer(miniBuffer).build().core(), publisher, metrics,
                loopTasks::add);
    }

    /** The loop's pass is over: it runs what was queued meanwhile. */
    private void endOfPass() {
        List<Runnable> queued = new ArrayList<>(loopTasks);
        loopTasks.clear();
        queued.forEach(Runnable::run);
    }

    private Unicast unicast(String id, boolean receipt) {
        return new Unicast(id, "app", session.mnId.toString(), id.getBytes(), null, System.currentTimeMillis(), receipt);
    }

    private List<String> unsentIds() {
        return publisher.of(UnsentMessage.class).stream().map(u -> u.unicast().messageId()).toList();
    }

    @Test
    void aPassWithMoreReceiptsThanARecordTakesWritesThemInRecordsOfAtMostThatMany() {
        ShardDownlink downlink = downlink(false);
        int count = ShardDownlink.RECEIPTS_PER_RECORD + 3;
        for (int i = 0; i < count; i++) {
            downlink.deliver(session, unicast("m" + i, false), 3, null, true);
        }
        link.delivered.forEach(id -> downlink.acknowledged(session, id));
        endOfPass();

        assertThat(publisher.of(ReceiptBatch.class)).extracting(b -> b.receipts().size())
                .containsExactly(ShardDownlink.RECEIPTS_PER_RECORD, 3);
        assertThat(publisher.of(Receipt.class)).extracting(Receipt::messageId).hasSize(count).doesNotHaveDuplicates();
        assertThat(loopTasks).as("no write left queued").isEmpty();
    }

    @Test
    void eachAcknowledgedRoutedDeliveryDrawsOneDeliveredReceiptAndABroadcastNone() {
        ShardDownlink downlink = downlink(false);
        downlink.deliver(session, unicast("m1", true), 3, null, true);
        downlink.deliver(session, unicast("m2", false), 3, null, true);
        downlink.deliver(session, unicast("b1", false), 3, null, false); // a broadcast: no job waits for it
        assertThat(downlink.open()).isEqualTo(3);

        downlink.acknowledged(session, link.delivered.get(0));
        downlink.acknowledged(session, link.delivered.get(1));
        downlink.acknowledged(session, link.delivered.get(1)); // a repeated acknowledgement
        downlink.acknowledged(session, link.delivered.get(2));
        assertThat(publisher.of(ReceiptBatch.class)).as("nothing written before the pass is over").isEmpty();
        endOfPass();

        assertThat(downlink.open()).isZero();
        assertThat(publisher.of(ReceiptBatch.class)).as("one record for the pass's receipts").hasSize(1);
        assertThat(publisher.of(Receipt.class)).extracting(Receipt::messageId, Receipt::outcome, Receipt::gatewayId)
                .containsExactly(tuple("m1", Receipt.Outcome.DELIVERED, "gw-t"),
                        tuple("m2", Receipt.Outcome.DELIVERED, "gw-t"));
        assertThat(session.broadcasts).isEmpty();
        assertThat(session.held()).as("no map kept for none").isSameAs(Map.of());
        assertThat(metrics.messagesOut.get()).isEqualTo(4.0);
    }

    @Test
    void aClosedSessionSendsBackWhatItsLinkSentThenWhatItNeverSentWithTheEpochItWasRoutedTo() {
        ShardDownlink downlink = downlink(false);
        for (String id : List.of("m1", "m2")) {
            downlink.deliver(session, unicast(id, false), 3, null, true);
        }
        downlink.deliver(session, unicast("b1", false), 3, null, false); // a broadcast's copy
        UUID notYetSent = ShardDownlink.deliveryIdOf("m3");
        session.hold(notYetSent, unicast("m3", false)); // taken, the link has not sent it

        downlink.closed(session, UnsentMessage.Reason.SESSION_REPLACED);

        assertThat(link.closed).isTrue();
        assertThat(unsentIds()).containsExactly("m1", "m2", "b1", "m3");
        assertThat(publisher.of(UnsentMessage.class)).allMatch(u -> u.epoch() == 3
                && u.reason() == UnsentMessage.Reason.SESSION_REPLACED);
        assertThat(publisher.of(UnsentMessage.class)).extracting(UnsentMessage::mayHaveArrived)
                .as("sent ones may have arrived, their acknowledgement lost").containsExactly(true, true, true, false);
        assertThat(publisher.of(UnsentMessage.class)).extracting(UnsentMessage::routed)
                .as("the job takes a broadcast's copy in; a routed one it holds already").containsExactly(true, true, false, true);
        assertThat(session.held()).as("no map kept for none").isSameAs(Map.of());
        assertThat(metrics.unsent.labelValues("SESSION_REPLACED").get()).isEqualTo(4.0);
    }

    @Test
    void deliveriesForNoSessionOrForAnotherSessionGoBackAsUnsent() {
        ShardDownlink downlink = downlink(false);
        downlink.deliver(null, unicast("nobody", false), 2, null, true);
        downlink.deliver(session, unicast("older", false), 2, null, true); // the node's session 3 replaced 2

        assertThat(link.delivered).isEmpty();
        assertThat(publisher.of(UnsentMessage.class)).extracting(UnsentMessage::reason, UnsentMessage::epoch)
                .containsExactly(tuple(UnsentMessage.Reason.NOT_CONNECTED, 2L),
                        tuple(UnsentMessage.Reason.SESSION_REPLACED, 2L));
        assertThat(downlink.open()).isZero();
    }

    @Test
    void aDeliveryTheNodeNeverHadPastItsDeadlineGoesBackAsExpiredAndABroadcastSilently() {
        ShardDownlink downlink = downlink(false);
        long deadline = System.currentTimeMillis() + 60_000;
        downlink.deliver(session, unicast("m1", true), 3, deadline, true);
        downlink.deliver(session, unicast("b1", false), 3, null, false);
        assertThat(link.deadlines).as("the link never sends past it").containsExactly(deadline, Long.MAX_VALUE);

        downlink.expired(session, link.delivered.get(0), false);
        downlink.expired(session, link.delivered.get(0), false); // a repeated refusal
        downlink.expired(session, link.delivered.get(1), false);

        assertThat(publisher.of(UnsentMessage.class)).extracting(u -> u.unicast().messageId(), UnsentMessage::reason,
                UnsentMessage::epoch).containsExactly(tuple("m1", UnsentMessage.Reason.EXPIRED, 3L));
        endOfPass();
        assertThat(publisher.of(Receipt.class)).isEmpty();
        assertThat(downlink.open()).isZero();
        assertThat(session.held()).as("no map kept for none").isSameAs(Map.of());
        assertThat(session.broadcasts).isEmpty();
    }

    @Test
    void theMiniBufferSendsTheLastTwoAcknowledgedBackOnlyWhenTheConnectionFails() {
        ShardDownlink withBuffer = downlink(true);
        for (String id : List.of("a1", "a2", "a3")) {
            withBuffer.deliver(session, unicast(id, false), 3, null, true);
        }
        List.copyOf(link.delivered).forEach(id -> withBuffer.acknowledged(session, id));
        withBuffer.connectionFailed(session);
        assertThat(unsentIds()).containsExactly("a2", "a3");

        Session other = new Session(UUID.randomUUID(), 1, Grants.ALL, FakeLink::new, SessionShard.nowMs());
        ShardDownlink withoutBuffer = downlink(false);
        withoutBuffer.deliver(other, unicast("b1", false), 1, null, true);
        withoutBuffer.acknowledged(other, ((FakeLink) other.link).delivered.get(0));
        withoutBuffer.connectionFailed(other);
        assertThat(unsentIds()).containsExactly("a2", "a3");
    }

    @Test
    void aMessageIdThatIsNotAUuidGetsAStableDeliveryId() {
        UUID id = UUID.randomUUID();
        assertThat(ShardDownlink.deliveryIdOf(id.toString())).isEqualTo(id);
        assertThat(ShardDownlink.deliveryIdOf("order-17")).isEqualTo(ShardDownlink.deliveryIdOf("order-17"))
                .isNotEqualTo(ShardDownlink.deliveryIdOf("order-18"));
    }
}
