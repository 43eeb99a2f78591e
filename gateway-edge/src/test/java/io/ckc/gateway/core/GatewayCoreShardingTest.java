package io.ckc.gateway.core;

import io.ckc.protocol.auth.Grants;
import io.ckc.gateway.GatewayConfig;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.Unicast;
import io.ckc.testing.Await;
import io.ckc.protocol.netty.DatagramTransport;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The core's sharding on real event loops: a node's session lives on one loop, and its deliveries keep their order. */
class GatewayCoreShardingTest {

    private static final int LOOPS = 4;
    private final EventLoopGroup group = DatagramTransport.current().newGroup(LOOPS);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private List<EventLoop> loops() {
        List<EventLoop> loops = new ArrayList<>();
        for (EventExecutor executor : group) {
            loops.add((EventLoop) executor);
        }
        return loops;
    }

    @Test
    void nodeIdsThatDifferOnlyInTheirLastBitsSpreadOverEveryShardAndAlwaysMapToTheSameOne() {
        long high = UUID.randomUUID().getMostSignificantBits();
        int[] perShard = new int[LOOPS];
        for (int i = 0; i < 10_000; i++) {
            UUID id = new UUID(high, i);
            int shard = GatewayCore.shardIndex(id, LOOPS);
            assertThat(GatewayCore.shardIndex(new UUID(high, i), LOOPS)).isEqualTo(shard);
            perShard[shard]++;
        }
        for (int count : perShard) {
            assertThat(count).as("nodes per shard of 10,000 over %d", LOOPS).isBetween(2_000, 3_000);
        }
    }

    @Test
    void manyNodesOnFourLoopsEachKeepOneSessionOnOneLoopAndGetTheirDeliveriesInOrder() throws Exception {
        FakePublisher publisher = new FakePublisher(Set.of("echo"));
        GatewayConfig config = GatewayConfig.forTest("gw-s", "unused:9092", Topics.DEFAULT);
        GatewayCore core = new GatewayCore(config.core(), publisher, new GatewayMetrics("gw-s", new PrometheusRegistry()), loops());
        int nodes = 400;
        int perNode = 50;
        Map<UUID, FakeLink> links = new ConcurrentHashMap<>();
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            UUID id = UUID.randomUUID();
            ids.add(id);
            SessionShard shard = core.shardOf(id);
            shard.execute(() -> links.put(id, (FakeLink) shard.open(id, 1, Grants.ALL, FakeLink::new).link()));
        }
        Await.until("every session open", 20, () -> links.size() == nodes);
        // Two threads feed commands, as the Kafka consumer and a broadcast would, interleaved by node.
        Thread[] feeders = new Thread[2];
        for (int f = 0; f < feeders.length; f++) {
            int half = f;
            feeders[f] = new Thread(() -> {
                for (int seq = 0; seq < perNode; seq++) {
                    for (int n = half; n < nodes; n += 2) {
                        UUID id = ids.get(n);
                        byte[] payload = ByteBuffer.allocate(4).putInt(seq).array();
                        core.command(new GatewayCommand.Deliver(new Unicast(UUID.randomUUID().toString(), "app",
                                id.toString(), payload, null, System.currentTimeMillis(), false), 1, null));
                    }
                }
            });
            feeders[f].start();
        }
        for (Thread feeder : feeders) {
            feeder.join();
        }
        Await.until("every delivery made", 20, () -> links.values().stream()
                .allMatch(l -> l.session.link() == l && deliveredOn(core, l) == perNode));

        Set<Thread> loopThreads = ConcurrentHashMap.newKeySet();
        for (UUID id : ids) {
            FakeLink link = links.get(id);
            SessionShard owner = core.shardOf(id);
            assertThat(link.threads).as("every call on one node's link").hasSize(1);
            loopThreads.addAll(link.threads);
            List<Integer> order = new ArrayList<>();
            owner.loop().submit(() -> link.payloads.forEach(p -> order.add(ByteBuffer.wrap(p).getInt()))).sync();
            assertThat(order).as("deliveries of " + id).isSorted().hasSize(perNode);
            for (int s = 0; s < core.shardCount(); s++) {
                SessionShard shard = core.shard(s);
                boolean here = shard.loop().submit(() -> shard.current(id) != null).get();
                assertThat(here).as("session of %s on shard %d", id, s).isEqualTo(shard == owner);
            }
        }
        assertThat(loopThreads).as("the sessions use every loop").hasSize(LOOPS);
    }

    private static int deliveredOn(GatewayCore core, FakeLink link) {
        try {
            return core.shardOf(link.session.mnId()).loop().submit(() -> link.delivered.size()).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
