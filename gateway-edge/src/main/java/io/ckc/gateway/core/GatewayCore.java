package io.ckc.gateway.core;

import io.ckc.protocol.records.Broadcast;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GatewayEndpoints;
import io.ckc.protocol.records.GatewayList;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.Unicast;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The protocol-independent gateway (Eclipse Hono's adapter base, in our shape): node sessions sharded
 * by node id over N event loops ({@link SessionShard}), and what is gateway-wide: commands from the
 * core routed to the shard of their node, broadcasts and the gateway list to every shard, ping
 * windows opened and reported across the shards, load reports, the HelloPoA. Protocol adapters
 * find a node's shard with {@link #shardOf} and call it on its loop.
 */
public final class GatewayCore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayCore.class);

    private final CoreOptions config;
    private final CorePublisher publisher;
    private final GatewayMetrics metrics;
    private final SessionShard[] shards;
    /** Deliveries handed to a loop whose task has not run yet. */
    private final java.util.concurrent.atomic.AtomicInteger dispatching = new java.util.concurrent.atomic.AtomicInteger();
    /** How often the buckets of addresses that stopped opening sessions are dropped. */
    static final long ADDRESS_SWEEP_MS = 10_000;
    /** How often the uplink admission looks at the deliveries' ages. */
    static final long UPLINK_ADMISSION_UPDATE_MS = 100;
    /** Gateway-wide timers (reports, ping windows) run on the first shard's loop. */
    private final EventLoop control;
    /** Refuses a share of uplink messages while the deliveries read are too old: fed by the core consumer. */
    private final UplinkAdmission uplinkAdmission;
    /** New sessions per source address, shared by the shards. */
    private final AddressLimits addressLimits;
    private final List<ScheduledFuture<?>> timers = new ArrayList<>();
    private LoadSampler loadSampler;
    // Ping windows: confined to the control loop.
    private final Optional<NodeAuthenticator> authenticator;
    private long pingIntervalMs;
    private long pingWindowMs;
    private long lastWindowStartNanos;
    private ScheduledFuture<?> nextWindow;
    /** Windows closed since the last that listed the nodes ({@link PingWindow#listsNodes}). */
    private int windowsUnlisted;
    // The gateway list: confined to the thread that reads the core's records.
    private List<GatewayEndpoints> gatewayList = List.of();
    private long gatewayListSentMs;

    public GatewayCore(CoreOptions config, CorePublisher publisher, GatewayMetrics metrics, List<EventLoop> loops) {
        if (loops.isEmpty()) {
            throw new IllegalArgumentException("a gateway core needs at least one event loop");
        }
        this.config = config;
        this.publisher = publisher;
        this.metrics = metrics;
        this.uplinkAdmission = new UplinkAdmission(config.uplinkTargetAgeMs(), config.uplinkBurstMs(),
                UPLINK_ADMISSION_UPDATE_MS);
        this.addressLimits = new AddressLimits(config.limits(), SessionShard.CLOCK);
        this.authenticator = NodeAuthenticator.of(config.security());
        this.shards = new SessionShard[loops.size()];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = new SessionShard(i, loops.size(), loops.get(i), config, publisher, metrics, uplinkAdmission,
                    addressLimits);
        }
        this.control = loops.get(0);
        this.pingIntervalMs = config.pingIntervalMs();
        this.pingWindowMs = config.pingWindowMs();
        metrics.pingWindowMs.set(pingWindowMs);
    }

    /** Who may be a node: every adapter asks it when a session opens; empty in the insecure mode. */
    public Optional<NodeAuthenticator> authenticator() {
        return authenticator;
    }

    /** New sessions per source address, for an adapter that checks them before a frame reaches a shard. */
    public AddressLimits addressLimits() {
        return addressLimits;
    }

    /** The uplink admission the core consumer feeds with the ages of the deliveries it reads. */
    public UplinkAdmission uplinkAdmission() {
        return uplinkAdmission;
    }

    public int shardCount() {
        return shards.length;
    }

    public SessionShard shard(int index) {
        return shards[index];
    }

    /** The shard that owns this node's session: the same for every frame of the node, whatever its address. */
    public SessionShard shardOf(UUID mnId) {
        return shards[shardIndex(mnId, shards.length)];
    }

    /** A node's shard: its id's hash, mixed so that ids differing only in their last bits spread evenly. */
    static int shardIndex(UUID mnId, int shardCount) {
        long bits = mnId.getMostSignificantBits() ^ mnId.getLeastSignificantBits();
        bits *= 0x9E3779B97F4A7C15L;
        return (int) Math.floorMod(bits >>> 32, (long) shardCount);
    }

    public CoreOptions options() {
        return config;
    }

    /**
     * Starts the timers and says hello to the PoA manager with the endpoints the adapters listen on.
     *
     * @param endpoints where nodes reach this gateway, one per protocol adapter
     */
    public void start(List<Endpoint> endpoints) throws InterruptedException, ExecutionException {
        List<Long> loopThreads = new ArrayList<>();
        for (SessionShard shard : shards) {
            loopThreads.add(shard.loop().submit(() -> Thread.currentThread().getId()).get());
            shard.start();
        }
        loadSampler = new LoadSampler(config.gatewayId(), config.reportPeriodMs(), loopThreads);
        timers.add(control.scheduleAtFixedRate(this::reportLoad, config.reportPeriodMs(), config.reportPeriodMs(),
                TimeUnit.MILLISECONDS));
        timers.add(control.scheduleAtFixedRate(addressLimits::sweep, ADDRESS_SWEEP_MS, ADDRESS_SWEEP_MS,
                TimeUnit.MILLISECONDS));
        control.execute(() -> {
            lastWindowStartNanos = System.nanoTime();
            scheduleNextWindow();
        });
        publisher.hello(new HelloPoA(config.gatewayId(), endpoints, System.currentTimeMillis()));
    }

    // ---------------------------------------------------------------------------------------------
    // from Kafka: any thread

    /**
     * Deliveries taken from Kafka that no node has acknowledged yet: on their way to a loop, queued for
     * a slot in a socket's congestion window, or in flight. The core consumer reads no more while this
     * is above CKC_DOWNLINK_BACKLOG, so an overload keeps its backlog in Kafka, not in this heap.
     */
    public int downlinkBacklog() {
        int backlog = dispatching.get();
        for (SessionShard shard : shards) {
            backlog += shard.downlinkOpen();
        }
        return backlog;
    }

    /** A command from the core (delivery, handover, ping settings), taken to the loop it concerns. */
    public void command(GatewayCommand command) {
        if (command instanceof GatewayCommand.Deliver deliver) {
            Unicast unicast = deliver.unicast();
            UUID mnId = nodeIdOf(unicast.recipient());
            if (mnId == null) {
                deadLetter("recipient is not a mobile node id: " + unicast.recipient(), unicast);
            } else if (unicast.payload() == null || unicast.payload().length > config.maxPayloadBytes()) {
                deadLetter("payload missing or larger than " + config.maxPayloadBytes() + " bytes", unicast);
            } else {
                SessionShard shard = shardOf(mnId);
                dispatching.incrementAndGet();
                shard.execute(() -> {
                    dispatching.decrementAndGet();
                    shard.deliver(mnId, unicast, deliver.epoch(), deliver.expiresAt());
                });
            }
        } else if (command instanceof GatewayCommand.Handover handover) {
            UUID mnId = nodeIdOf(handover.mnId());
            if (mnId == null) {
                metrics.handovers.labelValues("ignored").inc();
                return;
            }
            SessionShard shard = shardOf(mnId);
            shard.execute(() -> shard.handOver(mnId, handover.target()));
        } else if (command instanceof GatewayCommand.ConfigurePing ping) {
            control.execute(() -> configurePing(ping));
        }
    }

    /** A broadcast: every node connected here now gets it (a failed delivery goes to ckc.unsent like any other). */
    public void broadcast(Broadcast broadcast) {
        for (SessionShard shard : shards) {
            shard.execute(() -> shard.broadcast(broadcast));
        }
    }

    /** The PoA manager's latest gateway list; forwarded to every node when it changes. One thread at a time. */
    public void gatewayList(GatewayList list) {
        List<GatewayEndpoints> addresses = list.gateways().stream().map(GatewayList.Entry::reach).toList();
        if (addresses.equals(gatewayList)) {
            return;
        }
        // Why: scores move the order all the time; a reliable message to every node on each move
        // would load the gateway for little. A new or lost gateway goes out at once.
        boolean sameGateways = new HashSet<>(addresses).equals(new HashSet<>(gatewayList));
        long now = SessionShard.nowMs();
        if (sameGateways && now - gatewayListSentMs < config.gatewayListIntervalMs()) {
            return;
        }
        gatewayListSentMs = now;
        gatewayList = addresses;
        metrics.gatewayLists.inc();
        for (SessionShard shard : shards) {
            shard.execute(() -> shard.gatewayList(addresses));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // ping windows and load reports: on the control loop

    private void configurePing(GatewayCommand.ConfigurePing ping) {
        if (ping.intervalMs() == pingIntervalMs && ping.windowMs() == pingWindowMs) {
            return;
        }
        LOG.info("Ping windows now every {} ms, open {} ms (were {} / {})", ping.intervalMs(), ping.windowMs(),
                pingIntervalMs, pingWindowMs);
        pingIntervalMs = ping.intervalMs();
        pingWindowMs = ping.windowMs();
        metrics.pingWindowMs.set(pingWindowMs);
        if (nextWindow != null) {
            nextWindow.cancel(false); // takes effect now: the next window follows the new interval
        }
        scheduleNextWindow();
    }

    private void scheduleNextWindow() {
        long dueNanos = lastWindowStartNanos + TimeUnit.MILLISECONDS.toNanos(pingIntervalMs);
        nextWindow = control.schedule(this::openWindow, Math.max(0, dueNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /**
     * Every shard pings its nodes; after the window's length each hands over its share, and the
     * shares become one ConnectionReport. A window as long as the interval closes as the next opens.
     */
    private void openWindow() {
        long startNanos = System.nanoTime();
        lastWindowStartNanos = startNanos;
        long sentAtMicros = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
        long windowMs = pingWindowMs;
        int perShard = (config.pingSample() + shards.length - 1) / shards.length;
        for (SessionShard shard : shards) {
            shard.execute(() -> shard.openWindow(sentAtMicros, startNanos, windowMs, perShard));
        }
        long closeInNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(windowMs),
                TimeUnit.MILLISECONDS.toNanos(pingIntervalMs) - 1_000_000);
        control.schedule(() -> closeWindow(sentAtMicros, windowMs), Math.max(0, closeInNanos), TimeUnit.NANOSECONDS);
        scheduleNextWindow();
    }

    private void closeWindow(long sentAtMicros, long windowMs) {
        int serving = 0;
        for (SessionShard shard : shards) {
            serving += shard.serving();
        }
        boolean listed = PingWindow.listsNodes(windowsUnlisted, serving);
        windowsUnlisted = listed ? 0 : windowsUnlisted + 1;
        List<CompletableFuture<PingWindow.Part>> parts = new ArrayList<>(shards.length);
        for (SessionShard shard : shards) {
            CompletableFuture<PingWindow.Part> part = new CompletableFuture<>();
            shard.execute(() -> part.complete(shard.closeWindow(sentAtMicros, listed)));
            parts.add(part);
        }
        CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenRun(() -> {
            List<PingWindow.Part> all = parts.stream().map(CompletableFuture::join).toList();
            for (var report : PingWindow.report(config.gatewayId(), sentAtMicros, windowMs, all, config.reportChunk(),
                    listed)) {
                publisher.connections(report);
            }
            metrics.pingWindows.inc();
        });
    }

    /** Nodes leaving after a handover are not counted: they are on their way to another gateway. */
    private void reportLoad() {
        int serving = 0;
        for (SessionShard shard : shards) {
            serving += shard.serving();
        }
        publisher.load(loadSampler.sample(serving));
    }

    // ---------------------------------------------------------------------------------------------

    private static UUID nodeIdOf(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException | NullPointerException e) {
            return null;
        }
    }

    private void deadLetter(String reason, Unicast unicast) {
        metrics.deadLetters.inc();
        LOG.warn("Dead letter for {}: {}", unicast.messageId(), reason);
        publisher.deadLetter(new DeadLetter("gateway:" + config.gatewayId(), config.topics().gateway(config.gatewayId()),
                -1, -1, reason + " (message " + unicast.messageId() + ")", null, null, System.currentTimeMillis()));
    }

    /**
     * Stops the timers and closes every session on its loop, waiting for that: their Disconnected
     * events and unsent deliveries are handed to the publisher before it closes.
     */
    @Override
    public void close() throws InterruptedException {
        timers.forEach(t -> t.cancel(false));
        control.execute(() -> {
            if (nextWindow != null) {
                nextWindow.cancel(false);
            }
        });
        List<io.netty.util.concurrent.Future<?>> closing = new ArrayList<>();
        for (SessionShard shard : shards) {
            closing.add(shard.loop().submit(shard::closeAll));
        }
        for (io.netty.util.concurrent.Future<?> f : closing) {
            try {
                f.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("Sessions did not close cleanly", e);
            }
        }
    }
}
