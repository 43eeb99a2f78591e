package io.ckc.perf;

import io.ckc.client.ClientConfig;
import io.ckc.client.ClientTransport;
import io.ckc.client.MobileNode;
import io.ckc.client.NodeCredentials;
import io.ckc.client.NodeListener;
import io.ckc.protocol.dtls.DatagramQueue;
import io.ckc.protocol.dtls.DtlsPeers;
import io.ckc.protocol.dtls.DtlsSession;
import io.ckc.protocol.frame.Body;
import io.ckc.protocol.frame.Frame;
import io.ckc.protocol.frame.FrameCodec;
import io.ckc.protocol.frame.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code ./ckc perf flood}: honest nodes run the echo on the first gateway while, in turn, nothing else happens
 * (quiet), one source address floods the gateway with connects for ever new node ids (address flood), and one node
 * sends far more messages than its limit, in order but without waiting for acknowledgements or backing off when
 * refused (node flood); both floods are raw frames from sockets of their own, as a misbehaving program sends them.
 * Where the gateway authenticates (the simulator has the fleet's keys), the address flood is of half-open DTLS
 * handshakes instead ({@link HandshakeFlood}: plain connects never reach a session there), and the flooding node
 * seals its frames in a DTLS session of its own. Meanwhile a new honest node connects every
 * {@code --probe-interval-ms}, a handshake included where there is one: what a node that roams or whose gateway
 * restarted needs while a flood goes on. Per phase, the honest nodes' round trip p50 and p99, the probes' connect p99
 * and failures, and the gateway's refusals of each kind read from its {@code /metrics}; then whether any honest
 * message was lost. The address flood comes from {@code --flood-address} (127.0.0.2: every 127/8 address is the
 * loopback here), the honest nodes from 127.0.0.1. Ends with {@code RESULT scenario=flood ... lost=.. p99_ratio=..};
 * exits 1 if an honest message was lost, a probe did not connect, a flood was not refused, or a flood phase's p99
 * exceeds {@code --max-p99-ratio} times the quiet one's.
 */
@Command(name = "flood", mixinStandardHelpOptions = true,
        description = "Honest nodes' echo while one address floods connects and one node floods messages: their RTT, "
                + "the refusals, anything lost.")
final class FloodCommand implements Callable<Integer> {

    @Option(names = "--gateways", required = true, split = ",", description = "Gateway UDP addresses; all use the first")
    List<String> gateways;

    @Option(names = "--metrics", required = true, description = "That gateway's metrics URL, e.g. http://127.0.0.1:9400/metrics")
    String metricsUrl;

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers")
    String bootstrap;

    @Option(names = "--nodes", defaultValue = "200", description = "Honest nodes (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--rate", defaultValue = "200", description = "Honest echo messages per second, all together (default ${DEFAULT-VALUE})")
    int rate;

    @Option(names = "--phase-seconds", defaultValue = "20", description = "Length of each phase: quiet, address flood, node flood (default ${DEFAULT-VALUE})")
    int phaseSeconds;

    @Option(names = "--flood-address", defaultValue = "127.0.0.2", description = "The address the connect flood comes from (default ${DEFAULT-VALUE})")
    String floodAddress;

    @Option(names = "--connect-flood-rate", defaultValue = "20000", description = "Connects per second of the address flood, each for a new node id (default ${DEFAULT-VALUE})")
    int connectFloodRate;

    @Option(names = "--flood-sockets", defaultValue = "200", description = "Ports the handshake flood sends from, each holding a handshake of its own at the gateway (default ${DEFAULT-VALUE})")
    int floodSockets;

    @Option(names = "--probe-interval-ms", defaultValue = "500", description = "A new honest node connects this often (default ${DEFAULT-VALUE})")
    int probeIntervalMs;

    @Option(names = "--message-flood-rate", defaultValue = "5000", description = "Messages per second the flooding node tries to send (default ${DEFAULT-VALUE})")
    int messageFloodRate;

    @Option(names = "--max-p99-ratio", defaultValue = "2.0", description = "A flood phase's honest p99 may be this many times the quiet phase's (default ${DEFAULT-VALUE})")
    double maxP99Ratio;

    @Option(names = "--drain-seconds", defaultValue = "30", description = "Wait this long without progress for the last echoes (default ${DEFAULT-VALUE})")
    int drainSeconds;

    @Option(names = "--io-threads", defaultValue = "2", description = "Simulator I/O threads (default ${DEFAULT-VALUE})")
    int ioThreads;

    PrintStream out = System.out;

    /** One phase's figures. */
    record Phase(String name, long echoes, double p50Ms, double p99Ms, double addressRefusals, double rateLimited,
                 double flapping, double busy, double retransmissions, double kernelDrops, ConnectProbe.Figures probes) {
        Phase withProbes(ConnectProbe.Figures figures) {
            return new Phase(name, echoes, p50Ms, p99Ms, addressRefusals, rateLimited, flapping, busy,
                    retransmissions, kernelDrops, figures);
        }
    }

    @Override
    public Integer call() throws Exception {
        StackOptions stack = StackOptions.of(gateways.subList(0, 1), List.of(), bootstrap, ioThreads);
        InetSocketAddress gateway = stack.gatewayAddresses().get(0);
        GatewayMetricsReader metrics = new GatewayMetricsReader(List.of(metricsUrl));
        List<Phase> phaseFigures = new java.util.concurrent.CopyOnWriteArrayList<>();
        long lost;
        long sent;
        long unsent;
        NodeCredentials credentials = FleetCredentials.current();
        try (LoadPath honest = LoadPath.open(Results.CKC, stack, nodes, out, ClientConfig.DEFAULT);
             ConnectProbe probe = new ConnectProbe(gateway, credentials, probeIntervalMs)) {
            out.printf(Locale.ROOT, "Flood: %d honest nodes at %d msg/s on %s; phases of %d s; %s%n", nodes, rate,
                    gateway, phaseSeconds, credentials == null ? "insecure gateway: plain connects flood"
                            : "authenticating gateway: half-open DTLS handshakes flood, the flooding node seals");
            String[] names = {"quiet", "address-flood", "node-flood"};
            long start = System.nanoTime();
            long phaseNanos = TimeUnit.SECONDS.toNanos(phaseSeconds);
            int[] current = {-1};
            AutoCloseable[] flood = {null};
            double[][] countersAtStart = {counters(metrics)};
            honest.trips().takeInterval();
            probe.phase(0);
            // Floods start and stop on a thread of their own: the schedule's thread only sends (a flooding node's
            // connect, refused BUSY while the gateway works through a connect flood, could take seconds).
            ExecutorService phases = Executors.newSingleThreadExecutor();
            Runnable tick = () -> {
                int phase = (int) Math.min(names.length - 1, (System.nanoTime() - start) / phaseNanos);
                if (phase == current[0]) {
                    return;
                }
                int previous = current[0];
                current[0] = phase;
                Histogram ended = previous >= 0 ? honest.trips().takeInterval() : null;
                probe.phase(phase);
                phases.execute(() -> {
                    try {
                        if (previous >= 0) {
                            stop(flood[0]);
                            record(phaseFigures, names[previous], ended, countersAtStart[0], counters(metrics));
                        }
                        countersAtStart[0] = counters(metrics);
                        flood[0] = switch (names[phase]) {
                            case "address-flood" -> credentials == null
                                    ? new ConnectFlood(gateway, floodAddress, connectFloodRate)
                                    : new HandshakeFlood(gateway, floodAddress, floodSockets, connectFloodRate);
                            case "node-flood" -> new MessageFlood(gateway, stack.channel, messageFloodRate, credentials);
                            default -> null;
                        };
                    } catch (Exception e) {
                        throw new IllegalStateException("phase " + names[phase] + " did not start", e);
                    }
                });
            };
            Schedule.runFor(nodes, (double) phaseSeconds * names.length, rate * 60.0 / nodes,
                    Schedule.Arrivals.CONSTANT, honest::send, honest.trips().sent, tick);
            Histogram last = honest.trips().takeInterval();
            probe.phase(-1);
            phases.execute(() -> {
                try {
                    stop(flood[0]);
                    record(phaseFigures, names[current[0]], last, countersAtStart[0], counters(metrics));
                } catch (Exception e) {
                    throw new IllegalStateException("the last flood did not stop", e);
                }
            });
            phases.shutdown();
            phases.awaitTermination(2, TimeUnit.MINUTES);
            honest.trips().awaitEchoes(drainSeconds, () -> { });
            probe.awaitOutstanding();
            for (int p = 0; p < phaseFigures.size(); p++) {
                ConnectProbe.Figures figures = probe.figures(p);
                phaseFigures.set(p, phaseFigures.get(p).withProbes(figures));
                out.printf(Locale.ROOT, "  %-13s new honest nodes: %d connected, p99 %.1f ms; %d not within %d s%n",
                        names[p], figures.connected(), figures.p99Ms(), figures.failed(), ConnectProbe.GIVE_UP_SECONDS);
            }
            sent = honest.trips().sent.get();
            lost = honest.trips().lost();
            unsent = honest.shed();
        }
        double quietP99 = phaseFigures.get(0).p99Ms();
        double worst = phaseFigures.stream().skip(1).mapToDouble(Phase::p99Ms).max().orElse(Double.NaN);
        double ratio = worst / quietP99;
        Phase address = phaseFigures.get(1);
        Phase node = phaseFigures.get(2);
        boolean refused = address.addressRefusals() > 0 && node.rateLimited() > 0;
        long connectsFailed = phaseFigures.stream().mapToLong(p -> p.probes().failed()).sum();
        boolean harmless = lost == 0 && unsent == 0 && ratio <= maxP99Ratio && connectsFailed == 0;
        out.printf(Locale.ROOT, "RESULT scenario=flood honest_nodes=%d rate=%d sent=%d lost=%d unsent=%d p99_quiet_ms=%.2f "
                        + "p99_address_flood_ms=%.2f p99_node_flood_ms=%.2f p99_ratio=%.2f address_refusals=%.0f "
                        + "rate_limited=%.0f connect_p99_quiet_ms=%.1f connect_p99_address_flood_ms=%.1f "
                        + "connect_p99_node_flood_ms=%.1f connects_failed=%d authenticated=%s harmless=%s%n", nodes,
                rate, sent, lost, unsent, quietP99, address.p99Ms(), node.p99Ms(), ratio, address.addressRefusals(),
                node.rateLimited(), phaseFigures.get(0).probes().p99Ms(), address.probes().p99Ms(),
                node.probes().p99Ms(), connectsFailed, credentials != null, harmless);
        return harmless && refused ? 0 : 1;
    }

    private static void stop(AutoCloseable flood) throws Exception {
        if (flood != null) {
            flood.close();
        }
    }

    private void record(List<Phase> figures, String name, Histogram echoes, double[] before, double[] after) {
        figures.add(phase(name, echoes, before, after, null));
        out.println("  " + describe(figures.get(figures.size() - 1)));
    }

    private static Phase phase(String name, Histogram echoes, double[] before, double[] after,
                               ConnectProbe.Figures probes) {
        boolean any = echoes.getTotalCount() > 0;
        return new Phase(name, echoes.getTotalCount(), any ? echoes.getValueAtPercentile(50) / 1000.0 : Double.NaN,
                any ? echoes.getValueAtPercentile(99) / 1000.0 : Double.NaN, after[0] - before[0], after[1] - before[1],
                after[2] - before[2], after[3] - before[3], after[4] - before[4], after[5] - before[5], probes);
    }

    private static String describe(Phase p) {
        return String.format(Locale.ROOT, "%-13s %7d echoes  p50 %7.2f ms  p99 %7.2f ms  refused: %6.0f connects "
                        + "(address), %6.0f messages (rate limit), %4.0f connects (flapping), %6.0f messages (busy); "
                        + "%5.0f retransmitted deliveries; %6.0f datagrams dropped by the kernel (full receive buffers, "
                        + "whole machine)", p.name(), p.echoes(), p.p50Ms(), p.p99Ms(), p.addressRefusals(),
                p.rateLimited(), p.flapping(), p.busy(), p.retransmissions(), p.kernelDrops());
    }

    /**
     * The gateway's refusals so far (connects refused by address, messages rate-limited, connects refused as
     * flapping, messages refused by its uplink admission), its retransmitted deliveries, and the datagrams this
     * machine's kernel dropped for a full receive buffer (any socket: the flood's target or the honest nodes').
     */
    private static double[] counters(GatewayMetricsReader metrics) throws Exception {
        List<PrometheusText.Sample> body = metrics.read();
        return new double[] {PrometheusText.sum(body, "ckc_gateway_connects_refused_total", "reason", "address_rate")
                // a handshake is a connect where the gateway authenticates
                + PrometheusText.sum(body, "ckc_gateway_dtls_handshakes_total", "outcome", "refused"),
                // over the limit, and every new message after it: the gateway takes none until the refused one again
                PrometheusText.sum(body, "ckc_gateway_rejected_messages_total", "code", "RATE_LIMITED")
                        + PrometheusText.sum(body, "ckc_gateway_rejected_messages_total", "code", "PUBLISH_FAILED"),
                PrometheusText.sum(body, "ckc_gateway_connects_refused_total", "reason", "flapping"),
                PrometheusText.sum(body, "ckc_gateway_rejected_messages_total", "code", "BUSY"),
                PrometheusText.sum(body, "ckc_gateway_retransmissions_total"),
                UdpStatistics.receiveBufferErrors()};
    }

    /**
     * Frames from one socket at a rate, as fast as one thread paces them, whatever the gateway answers: what a
     * flooding program sends, not a node that backs off when refused. Plain frames, or, once {@link #seal} opened a
     * DTLS session, frames sealed in it. What the gateway answers is read (a subclass may look at it) and dropped.
     */
    abstract static class RawFlood implements AutoCloseable {
        final AtomicLong sent = new AtomicLong();
        final DatagramChannel socket;
        private final Thread reader;
        private Thread sender;
        volatile boolean running = true;
        /** The datagrams of a sealed session, read by the thread that writes (a session is one thread's). */
        private volatile DatagramQueue sealedIn;
        private DtlsSession session;

        RawFlood(InetSocketAddress gateway, String fromAddress) throws Exception {
            socket = DatagramChannel.open().bind(new InetSocketAddress(fromAddress, 0));
            socket.connect(gateway);
            reader = new Thread(this::drain, "flood-answers");
            reader.setDaemon(true);
            reader.start();
        }

        /** Opens a DTLS session with the node's key: every frame after this is sealed in it. */
        void seal(NodeCredentials.Key key) throws IOException {
            sealedIn = new DatagramQueue(datagram -> {
                try {
                    socket.write(ByteBuffer.wrap(datagram));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            session = DtlsPeers.connect(sealedIn, key.identity(), key.key(), ThreadLocalRandom.current().nextLong());
        }

        /** The next frame to send. */
        abstract Frame next();

        /** What the gateway answered; nothing by default. */
        void answered(Frame answer) {
        }

        /** Starts sending {@code perSecond} frames a second. */
        void start(int perSecond) {
            sender = new Thread(() -> send(perSecond), "flood");
            sender.start();
        }

        void write(Frame frame, ByteBuf buffer) throws IOException {
            buffer.clear();
            FrameCodec.encode(frame, buffer);
            if (session != null) {
                session.send(buffer);
            } else {
                socket.write(buffer.nioBuffer());
            }
        }

        /** Opens what came in a sealed session and tells {@link #answered}; plain answers are told as they come. */
        void openAnswers() throws IOException {
            if (session != null) {
                session.drain((plaintext, sender, newest) -> answer(plaintext));
            }
        }

        private void answer(ByteBuf datagram) {
            try {
                answered(FrameCodec.decode(datagram));
            } catch (MalformedFrameException ignored) {
                // not ours to judge
            }
        }

        private void send(int perSecond) {
            long start = System.nanoTime();
            ByteBuf frame = Unpooled.buffer(256);
            try {
                while (running) {
                    long due = (System.nanoTime() - start) * perSecond / 1_000_000_000L;
                    while (sent.get() < due && running) {
                        write(next(), frame);
                        sent.incrementAndGet();
                    }
                    openAnswers();
                    TimeUnit.MICROSECONDS.sleep(500);
                }
            } catch (Exception e) {
                if (running) {
                    throw new IllegalStateException("flood stopped", e);
                }
            } finally {
                frame.release();
            }
        }

        private void drain() {
            ByteBuffer answer = ByteBuffer.allocate(2048);
            try {
                while (running) {
                    answer.clear();
                    socket.read(answer);
                    answer.flip();
                    DatagramQueue sealed = sealedIn;
                    if (sealed != null) {
                        byte[] datagram = new byte[answer.remaining()];
                        answer.get(datagram);
                        sealed.offer(datagram, null);
                    } else {
                        answer(Unpooled.wrappedBuffer(answer));
                    }
                }
            } catch (Exception closed) {
                // the flood ended
            }
        }

        @Override
        public void close() throws Exception {
            running = false;
            if (sender != null) {
                sender.join(5_000);
            }
            socket.close();
            reader.join(5_000);
        }
    }

    /** Connects for ever new node ids from one address; a session the gateway admits is never used, and times out. */
    static final class ConnectFlood extends RawFlood {
        ConnectFlood(InetSocketAddress gateway, String fromAddress, int perSecond) throws Exception {
            super(gateway, fromAddress);
            start(perSecond);
        }

        @Override
        Frame next() {
            return new Frame.Connect(UUID.randomUUID(), 1);
        }
    }

    /**
     * One node that connects as any node does (with its key where the gateway authenticates) and then sends messages
     * in order, each a new one, far faster than its limit and without waiting for an acknowledgement or backing off
     * when refused.
     */
    static final class MessageFlood extends RawFlood {
        private final UUID node = UUID.randomUUID();
        private final String channel;
        private final byte[] payload = new byte[64];
        private final java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(1);
        private int seq;

        /** @param credentials the fleet's keys where the gateway authenticates, or null */
        MessageFlood(InetSocketAddress gateway, String channel, int perSecond, NodeCredentials credentials)
                throws Exception {
            super(gateway, "127.0.0.1");
            this.channel = channel;
            if (credentials != null) {
                seal(credentials.key(node).orElseThrow());
            }
            ByteBuf buffer = Unpooled.buffer(64);
            try {
                for (int attempt = 0; attempt < 30 && connected.getCount() > 0; attempt++) {
                    write(new Frame.Connect(node, 1), buffer); // again while the gateway answers busy
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                    while (connected.getCount() > 0 && System.nanoTime() < until) {
                        openAnswers();
                        connected.await(10, TimeUnit.MILLISECONDS);
                    }
                }
            } finally {
                buffer.release();
            }
            if (connected.getCount() > 0) {
                close();
                throw new IllegalStateException("the flooding node was not admitted in 30 s");
            }
            start(perSecond);
        }

        @Override
        void answered(Frame answer) {
            if (answer instanceof Frame.ConnectAck) {
                connected.countDown();
            }
        }

        @Override
        Frame next() {
            return new Frame.Data(node, 1, ++seq, new Body.MnMessage(UUID.randomUUID(), channel, null, payload));
        }
    }

    /**
     * A new honest node every interval, on a transport of its own (a handshake included where the gateway
     * authenticates): how long each took to connect, by the phase it started in; one not connected within
     * {@link #GIVE_UP_SECONDS} counts as failed. A node is closed once connected.
     */
    static final class ConnectProbe implements AutoCloseable {
        static final int GIVE_UP_SECONDS = 15;

        /** One phase's probes. */
        record Figures(long connected, double p99Ms, long failed) {
        }

        private final InetSocketAddress gateway;
        private final ClientTransport transport;
        private final java.util.concurrent.ScheduledExecutorService timer =
                Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "connect-probe"));
        private final java.util.Map<Integer, Histogram> connectMicros = new java.util.concurrent.ConcurrentHashMap<>();
        private final java.util.Map<Integer, AtomicLong> failed = new java.util.concurrent.ConcurrentHashMap<>();
        private final java.util.Set<MobileNode> outstanding = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private volatile int phase = -1;

        ConnectProbe(InetSocketAddress gateway, NodeCredentials credentials, int intervalMs) throws Exception {
            this.gateway = gateway;
            this.transport = ClientTransport.open(credentials);
            timer.scheduleAtFixedRate(this::connectOne, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        }

        /** Probes from now on count for this phase; -1: no more probes. */
        void phase(int phase) {
            this.phase = phase;
        }

        private void connectOne() {
            int in = phase;
            if (in < 0) {
                return;
            }
            long start = System.nanoTime();
            MobileNode[] node = new MobileNode[1];
            node[0] = new MobileNode(UUID.randomUUID(), transport, gateway, new NodeListener() {
                @Override
                public void connected(MobileNode connected) {
                    if (outstanding.remove(connected)) {
                        histogram(in).recordValue(Math.max(1, (System.nanoTime() - start) / 1_000));
                        connected.close();
                    }
                }
            }, ClientConfig.DEFAULT);
            outstanding.add(node[0]);
            node[0].connect();
            timer.schedule(() -> {
                if (outstanding.remove(node[0])) {
                    failed.computeIfAbsent(in, p -> new AtomicLong()).incrementAndGet();
                    node[0].close();
                }
            }, GIVE_UP_SECONDS, TimeUnit.SECONDS);
        }

        private Histogram histogram(int phase) {
            return connectMicros.computeIfAbsent(phase, p -> new org.HdrHistogram.ConcurrentHistogram(3));
        }

        /** Waits until every probe started has connected or given up. */
        void awaitOutstanding() throws InterruptedException {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(GIVE_UP_SECONDS + 2);
            while (!outstanding.isEmpty() && System.nanoTime() < until) {
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }

        Figures figures(int phase) {
            Histogram connects = histogram(phase);
            long count = connects.getTotalCount();
            return new Figures(count, count > 0 ? connects.getValueAtPercentile(99) / 1000.0 : Double.NaN,
                    failed.getOrDefault(phase, new AtomicLong()).get());
        }

        @Override
        public void close() throws Exception {
            timer.shutdownNow();
            outstanding.forEach(MobileNode::close);
            transport.close();
        }
    }
}
