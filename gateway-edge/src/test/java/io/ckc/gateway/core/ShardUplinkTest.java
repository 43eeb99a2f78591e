package io.ckc.gateway.core;

import io.ckc.protocol.auth.Grants;
import io.ckc.gateway.GatewayConfig;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.Groupcast;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One shard's uplink over a session with a fake link and a fake publisher; the completions of writes
 * wait in {@link #loop} until the test runs them, as they would on the shard's event loop.
 */
class ShardUplinkTest {

    private final FakePublisher publisher = new FakePublisher(Set.of("echo", "sensors.t"));
    private final GatewayMetrics metrics = new GatewayMetrics("gw-t", new PrometheusRegistry());
    private final List<Runnable> loop = new ArrayList<>();
    private final Session session = new Session(UUID.randomUUID(), 1, Grants.ALL, FakeLink::new, SessionShard.nowMs());
    private final FakeLink link = (FakeLink) session.link;
    private GatewayConfig config = GatewayConfig.forTest("gw-t", "unused:9092", Topics.DEFAULT);
    private UplinkAdmission admission = new UplinkAdmission(250, 0, GatewayCore.UPLINK_ADMISSION_UPDATE_MS);

    private final ManualClock clock = new ManualClock();

    private ShardUplink uplink() {
        CoreOptions options = config.core();
        return new ShardUplink(options, publisher, metrics, admission,
                new NodeLimits(options.limits(), options.maxPayloadBytes(), clock), loop::add);
    }

    private void runLoop() {
        List<Runnable> due = new ArrayList<>(loop);
        loop.clear();
        due.forEach(Runnable::run);
    }

    private static Uplink.ToChannel toEcho(Context context, byte[] payload) {
        return new Uplink.ToChannel(UUID.randomUUID(), "echo", context, payload);
    }

    @Test
    void aNodeMayPublishAndGroupcastOnlyWhereItsCredentialGrants() {
        ShardUplink uplink = uplink();
        Session byDefault = new Session(UUID.randomUUID(), 1, Grants.DEFAULT, FakeLink::new, SessionShard.nowMs());
        Session sensorsOnly = new Session(UUID.randomUUID(), 1,
                new Grants(List.of("app.sensors.*"), List.of("grid/*")), FakeLink::new, SessionShard.nowMs());

        uplink.uplink(byDefault, 1, toEcho(null, "hi".getBytes()));
        uplink.uplink(byDefault, 2, new Uplink.ToGroup(UUID.randomUUID(), "grid/cell-1", null, new byte[1], null));
        uplink.uplink(sensorsOnly, 3, toEcho(null, "hi".getBytes()));
        uplink.uplink(sensorsOnly, 4, new Uplink.ToChannel(UUID.randomUUID(), "sensors.t", null, new byte[1]));
        uplink.uplink(sensorsOnly, 5, new Uplink.ToGroup(UUID.randomUUID(), "grid/cell-1", null, new byte[1], null));
        uplink.uplink(sensorsOnly, 6, new Uplink.ToGroup(UUID.randomUUID(), "app/all", null, new byte[1], null));
        runLoop();

        assertThat(((FakeLink) byDefault.link).calls).containsExactly("ack 1", "reject 2 NOT_AUTHORIZED");
        assertThat(((FakeLink) sensorsOnly.link).calls)
                .containsExactly("reject 3 NOT_AUTHORIZED", "ack 4", "ack 5", "reject 6 NOT_AUTHORIZED");
        assertThat(publisher.of(AppMessage.class)).hasSize(2);
        assertThat(publisher.of(Groupcast.class)).singleElement().satisfies(g -> assertThat(g.group()).isEqualTo("grid/cell-1"));
        assertThat(metrics.rejected.labelValues("NOT_AUTHORIZED").get()).isEqualTo(3.0);
    }

    @Test
    void anUplinkIsAcknowledgedAfterItsWriteAndRefusedWhenTheWriteFails() {
        ShardUplink uplink = uplink();
        publisher.hold();

        uplink.uplink(session, 7, toEcho(new Context(1.0, 2.0, 0.5, null), "hi".getBytes()));
        uplink.uplink(session, 9, new Uplink.ToGroup(UUID.randomUUID(), "app/all", null, new byte[1], 5_000L));
        runLoop();
        assertThat(publisher.of(AppMessage.class)).singleElement().satisfies(m -> {
            assertThat(m.mnId()).isEqualTo(session.mnId().toString());
            assertThat(m.channel()).isEqualTo("echo");
            assertThat(m.gatewayId()).isEqualTo("gw-t");
        });
        assertThat(publisher.of(Groupcast.class)).singleElement()
                .satisfies(g -> assertThat(g.ttlMs()).isEqualTo(5_000L));
        assertThat(publisher.of(ContextReport.class)).hasSize(1);
        assertThat(link.calls).isEmpty();

        publisher.completeHeld();
        runLoop();
        assertThat(link.calls).containsExactly("ack 7", "ack 9");

        uplink.uplink(session, 8, toEcho(null, "again".getBytes()));
        publisher.failHeld(new IllegalStateException("broker down"));
        runLoop();
        assertThat(link.calls).contains("reject 8 PUBLISH_FAILED").doesNotContain("ack 8");
        assertThat(metrics.messagesIn.get()).isEqualTo(1.0);
        assertThat(metrics.groupcastsIn.get()).isEqualTo(1.0);
    }

    @Test
    void aMessageKafkaDidNotTakeHoldsTheNodesLaterOnesUntilTheNodeSendsItAgain() {
        ShardUplink uplink = uplink();
        Uplink.ToChannel first = toEcho(null, "1".getBytes());
        Uplink.ToChannel second = toEcho(null, "2".getBytes());
        publisher.failAtOnce(new IllegalStateException("Topic app.echo not present in metadata after 0 ms"));
        uplink.uplink(session, 1, first);
        assertThat(link.calls).as("answered before the next datagram is read").containsExactly("reject 1 PUBLISH_FAILED");

        publisher.failAtOnce(null); // the broker is back before the node's next message
        uplink.uplink(session, 2, second);
        assertThat(link.calls).as("not written ahead of the refused one")
                .containsExactly("reject 1 PUBLISH_FAILED", "reject 2 PUBLISH_FAILED");

        uplink.uplink(session, 3, first); // the node sends the refused ones again, in order
        uplink.uplink(session, 4, second);
        runLoop();
        assertThat(publisher.of(AppMessage.class)).extracting(AppMessage::messageId).as("Kafka got them in order")
                .containsExactly(first.messageId().toString(), first.messageId().toString(), second.messageId().toString());
        assertThat(link.calls).endsWith("ack 3", "ack 4");
        assertThat(metrics.rejected.labelValues(Refusal.PUBLISH_FAILED.name()).get()).isEqualTo(2.0);
    }

    @Test
    void aMessageThatFindsTheProducersBufferFullIsRefusedAsBusyAndHoldsTheNodesLaterOnes() {
        ShardUplink uplink = uplink();
        publisher.hold();
        uplink.uplink(session, 1, toEcho(null, "1".getBytes()));
        publisher.failHeld(new CompletionException(new BufferExhaustedException(
                "Failed to allocate 212 bytes within the configured max blocking time 0 ms")));
        runLoop();
        uplink.uplink(session, 2, toEcho(null, "2".getBytes()));
        assertThat(link.calls).containsExactly("reject 1 BUSY", "reject 2 PUBLISH_FAILED");
        assertThat(metrics.rejected.labelValues(Refusal.BUSY.name()).get()).isEqualTo(1.0);
    }

    @Test
    void badUplinksAreRefusedWithTheirReasonAndNothingIsPublished() {
        ShardUplink uplink = uplink();
        uplink.uplink(session, 1, new Uplink.ToChannel(UUID.randomUUID(), "nowhere", null, new byte[1]));
        uplink.uplink(session, 2, new Uplink.ToChannel(UUID.randomUUID(), "../ckc.to-mn", null, new byte[1]));
        uplink.uplink(session, 3, toEcho(null, new byte[config.maxPayloadBytes() + 1]));
        uplink.uplink(session, 4, new Uplink.ToGroup(UUID.randomUUID(), "no-slash", null, new byte[1], null));
        runLoop();

        assertThat(link.calls).containsExactly("reject 1 UNKNOWN_CHANNEL", "reject 2 FORBIDDEN_CHANNEL",
                "reject 3 PAYLOAD_TOO_LARGE", "reject 4 MALFORMED");
        assertThat(publisher.records).isEmpty();
        assertThat(metrics.rejected.labelValues(Refusal.UNKNOWN_CHANNEL.name()).get()).isEqualTo(1.0);
    }

    @Test
    void whileTheDeliveriesAreTooOldUplinksAreRefusedAsBusyAndHoldTheNodesLaterOnes() {
        long now = 0;
        admission.update(now);
        for (int window = 0; window < 50 && admission.refuseProbability() < 1; window++) { // 30 s old: far behind
            admission.age(30_000);
            now += GatewayCore.UPLINK_ADMISSION_UPDATE_MS;
            admission.update(now);
        }
        assertThat(admission.refuseProbability()).isEqualTo(1.0);
        ShardUplink uplink = uplink();

        Uplink.ToChannel first = toEcho(null, new byte[1]);
        uplink.uplink(session, 1, first);
        uplink.uplink(session, 2, new Uplink.ToGroup(UUID.randomUUID(), "app/all", null, new byte[1], null));
        uplink.uplink(session, 3, first); // sent again: refused again while the core is behind
        runLoop();

        assertThat(link.calls).as("the second may not overtake the first")
                .containsExactly("reject 1 BUSY", "reject 2 PUBLISH_FAILED", "reject 3 BUSY");
        assertThat(publisher.records).isEmpty();
        assertThat(metrics.rejected.labelValues("BUSY").get()).isEqualTo(2.0);
    }

    @Test
    void aNodeOverItsMessageRateIsRefusedAtItsSourceUntilItsAllowanceRefills() {
        config = config.toBuilder().limits(new RateLimits(3, 0, 0, 0, 0, 0, 0)).build();
        ShardUplink uplink = uplink();

        List<Uplink.ToChannel> sent = new ArrayList<>();
        for (int ref = 1; ref <= 5; ref++) {
            sent.add(toEcho(null, new byte[1]));
            uplink.uplink(session, ref, sent.get(ref - 1));
        }
        runLoop();
        assertThat(link.calls).as("a second's worth at once, then refused; the fifth may not overtake the fourth")
                .containsExactly("ack 1", "ack 2", "ack 3", "reject 4 RATE_LIMITED", "reject 5 PUBLISH_FAILED");
        assertThat(metrics.rejected.labelValues("RATE_LIMITED").get()).isEqualTo(1.0);
        assertThat(publisher.of(AppMessage.class)).hasSize(3);

        link.calls.clear();
        clock.advanceMs(334); // one more token: 3 a second
        uplink.uplink(session, 6, sent.get(3));
        uplink.uplink(session, 7, sent.get(4));
        runLoop();
        assertThat(link.calls).containsExactly("ack 6", "reject 7 RATE_LIMITED");
        assertThat(publisher.of(AppMessage.class)).hasSize(4);
    }

    @Test
    void aNodeOverItsByteRateIsRefusedAndOneLargestPayloadAlwaysFits() {
        config = config.toBuilder().maxPayloadBytes(1_000).limits(new RateLimits(0, 100, 0, 0, 0, 0, 0)).build();
        ShardUplink uplink = uplink();

        uplink.uplink(session, 1, toEcho(null, new byte[1_000])); // larger than a second's 100 bytes
        Uplink.ToChannel small = toEcho(null, new byte[1]);
        uplink.uplink(session, 2, small);
        runLoop();
        assertThat(link.calls).containsExactly("ack 1", "reject 2 RATE_LIMITED");

        link.calls.clear();
        clock.advanceMs(60_000); // 1,000 bytes again, the bucket's most
        uplink.uplink(session, 3, small);
        uplink.uplink(session, 4, toEcho(null, new byte[600]));
        uplink.uplink(session, 5, toEcho(null, new byte[600]));
        runLoop();
        assertThat(link.calls).containsExactly("ack 3", "ack 4", "reject 5 RATE_LIMITED");
        assertThat(metrics.rejected.labelValues("RATE_LIMITED").get()).isEqualTo(2.0);
    }

    @Test
    void anUnchangedContextIsWrittenOnceAndAChangedOneAtOnce() {
        ShardUplink uplink = uplink();
        Context here = new Context(1.0, 2.0, 0.9, null);
        for (int ref = 1; ref <= 3; ref++) {
            uplink.uplink(session, ref, toEcho(here, new byte[1]));
        }
        uplink.uplink(session, 4, toEcho(new Context(1.5, 2.0, 0.9, null), new byte[1]));
        runLoop();

        assertThat(publisher.of(AppMessage.class)).hasSize(4);
        assertThat(publisher.of(ContextReport.class)).extracting(r -> r.context().latitude()).containsExactly(1.0, 1.5);
        assertThat(metrics.contextUnchanged.get()).isEqualTo(2.0);
    }

    @Test
    void withNoRefreshIntervalEveryContextIsWritten() {
        config = config.toBuilder().contextRefreshMs(0).build();
        ShardUplink uplink = uplink();
        for (int ref = 1; ref <= 3; ref++) {
            uplink.uplink(session, ref, toEcho(new Context(1.0, 2.0, null, null), new byte[1]));
        }
        runLoop();

        assertThat(publisher.of(ContextReport.class)).hasSize(3);
    }
}
