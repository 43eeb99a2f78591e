package io.ckc.perf;

import io.ckc.client.ClientConfig;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

/**
 * {@code perf faults}: a steady load through the echo application, with the paper's mtd_2 beside it (30% of its
 * nodes leave and come back at another gateway, their messages bound by a TTL), while faults drawn from a seed
 * strike the stack: the TaskManager and the broker killed, a gateway killed, bursts of reconnecting nodes, loss
 * and a rate limit on one gateway's path (see {@link FaultPlan.Kind}). The stack's processes are the
 * {@link FaultInjector}'s to kill and restart.
 *
 * <p>Checked message by message, from ids: lost (sent, never echoed; for the MTD messages, neither answered nor
 * reported expired or dropped), answered twice by the application, duplicates at the nodes before their dedupe
 * (counted) and after it (an error), expired messages delivered, echoes out of order, messages handed back
 * unsent. Per fault: recovery, from the injection (from the lift for loss and rate limit) to the end of the first
 * second whose echoes are within 10% of what was sent in it with p99 under 100 ms; for a gateway kill also how long until its
 * nodes were all connected again. One sample a second goes to {@code faults.csv}, a RESULT line per fault and
 * the run's to {@code faults.txt}.
 */
@Command(name = "faults", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Steady load and MTD messages while faults from a seed strike the stack: loss, duplicates, order, expiry, recovery.")
public final class FaultsCommand implements java.util.concurrent.Callable<Integer> {

    static final String CSV_HEADER = RescaleCommand.CSV_HEADER.replace(",rescale,", ",fault,")
            + ",unsent_per_s,reordered_per_s";
    /** A second is back to normal when its echoes are within this share of the load... */
    static final double LOAD_TOLERANCE = 0.10;
    /** ...and their p99 round trip is under this. */
    static final double P99_LIMIT_MS = 100;
    /** The baseline leaves out the load's first seconds: the roaming nodes connecting, the first MTD messages... */
    static final int BASELINE_FROM_SECOND = 5;
    /**
     * ...and is the last this many seconds before the first fault: on a fresh stack the roaming nodes' first
     * cycles ran at p99s of seconds for over a minute (2026-11-26 14:31), on a warm one not at all.
     */
    static final int BASELINE_SECONDS = 30;

    @Option(names = "--nodes", defaultValue = "500", description = "Nodes of the echo load; with --rate, each sends "
            + "every 3.3 s by default, and a node notices a dead gateway only when it sends (default ${DEFAULT-VALUE})")
    int nodes;

    /** How the echo load's nodes and the MTD scenario's connect. */
    @Mixin
    ProtocolOption protocol = new ProtocolOption();

    @Option(names = "--rate", defaultValue = "150", description = "Echo messages per second, all nodes together: what "
            + "the 2-core reference machine carries at p99 under 100 ms beside the ten JVMs of this stack, so that a "
            + "recovery to it means something (default ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--faults", defaultValue = "21", description = "Faults at least (default ${DEFAULT-VALUE})")
    int faults;

    @Option(names = "--per-kind", defaultValue = "3", description = "Faults of each kind at least (default ${DEFAULT-VALUE})")
    int perKind;

    @Option(names = "--kinds", split = ",", defaultValue = "taskmanager-kill,broker-stop,broker-kill,gateway-kill,"
            + "reconnect-burst,packet-loss,rate-limit", description = "Kinds to inject (default ${DEFAULT-VALUE})")
    List<String> kinds;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the plan: order, targets, times (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--first-fault-seconds", defaultValue = "90",
            description = "Load before the first fault; its last " + BASELINE_SECONDS + " s are the run's baseline "
                    + "(default ${DEFAULT-VALUE})")
    int firstFaultSeconds;

    @Option(names = "--interval-seconds", defaultValue = "45", description = "Seconds from one fault to the next (default ${DEFAULT-VALUE})")
    int intervalSeconds;

    @Option(names = "--jitter-seconds", defaultValue = "5", description = "Each fault comes up to this much later (default ${DEFAULT-VALUE})")
    int jitterSeconds;

    @Option(names = "--impairment-seconds", defaultValue = "10", description = "How long loss and rate limits last (default ${DEFAULT-VALUE})")
    int impairmentSeconds;

    @Option(names = "--loss-percent", defaultValue = "20", description = "Datagrams dropped on the impaired gateway's path (default ${DEFAULT-VALUE})")
    int lossPercent;

    @Option(names = "--rate-limit-kbit", defaultValue = "96", description = "Rate of the limited gateway's path, kbit/s (default ${DEFAULT-VALUE})")
    int rateLimitKbit;

    @Option(names = "--burst-share", defaultValue = "0.3", description = "Share of the load's nodes in a reconnect burst (default ${DEFAULT-VALUE})")
    double burstShare;

    @Option(names = "--roaming-nodes", defaultValue = "150", description = "Nodes of the MTD scenario beside the load; 0: none (default ${DEFAULT-VALUE})")
    int roamingNodes;

    @Option(names = "--away-seconds", defaultValue = "20", description = "How long a roaming node stays away (default ${DEFAULT-VALUE})")
    int awaySeconds;

    @Option(names = "--ttl-ms", defaultValue = "15000", description = "TTL of the MTD messages (default ${DEFAULT-VALUE})")
    long ttlMs;

    @Option(names = "--recovery-limit-seconds", defaultValue = "30", description = "Longest recovery that passes (default ${DEFAULT-VALUE})")
    int recoveryLimitSeconds;

    @Option(names = "--drain-seconds", defaultValue = "30", description = "After the load, wait this long without an echo for the last (default ${DEFAULT-VALUE})")
    int drainSeconds;

    @Option(names = "--lose-on-purpose", defaultValue = "0", hidden = true,
            description = "Messages counted as sent but never sent: the checks must report them lost")
    int loseOnPurpose;

    @Mixin
    StackOptions stack = new StackOptions();

    PrintStream out = System.out;

    private final FaultInjector injector;

    public FaultsCommand() {
        this(null);
    }

    public FaultsCommand(FaultInjector injector) {
        this.injector = injector;
    }

    /** One second of the run: its echoes, and what had been sent and handed back unsent by its end. */
    record Second(int second, long delivered, double p50Ms, double p99Ms, long sent, long unsent, long reordered) {
        Second(int second, long delivered, double p50Ms, double p99Ms, long sent) {
            this(second, delivered, p50Ms, p99Ms, sent, 0, 0);
        }
    }

    /** A fault as it went: when it struck and when it was over (seconds into the run), what the injector said. */
    record Struck(FaultPlan.Fault fault, double atSeconds, double overSeconds, String failure,
                  NodesBack.Result nodesBack) {
        /** Where recovery counts from: the lift of an impairment, the blow of anything else. */
        double recoveryFrom() {
            return fault.kind().lasts() ? overSeconds : atSeconds;
        }
    }

    @Override
    public Integer call() throws Exception {
        if (injector == null) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "perf faults kills and restarts the stack's processes: run it as ./ckc perf faults");
        }
        Results results = new Results(stack.resultsDir);
        List<FaultPlan.Kind> wanted = new ArrayList<>();
        for (String label : kinds) {
            FaultPlan.Kind kind = FaultPlan.Kind.of(label);
            java.util.Optional<String> why = injector.cannot(kind);
            if (why.isPresent()) {
                out.println("cannot inject " + kind.label() + " here: " + why.get());
            } else {
                wanted.add(kind);
            }
        }
        List<String> gatewayIds = new ArrayList<>();
        for (int i = 1; i <= stack.gateways.size(); i++) {
            gatewayIds.add("gw-" + i);
        }
        injector.prepare(out);
        FaultPlan plan = FaultPlan.draw(seed, wanted, faults, perKind, gatewayIds, firstFaultSeconds, intervalSeconds,
                jitterSeconds);
        int seconds = firstFaultSeconds + plan.faults().size() * intervalSeconds + jitterSeconds;
        out.printf(Locale.ROOT, "%d faults of %d kinds over %d s, seed %d:%n", plan.faults().size(), plan.kinds(), seconds,
                seed);
        plan.faults().forEach(f -> out.printf(Locale.ROOT, "  %5.1f s  %s%n", f.atSeconds(), f.describe()));

        List<Second> timeline = new ArrayList<>();
        List<Struck> struck = new ArrayList<>();
        AppReads app = new AppReads(nodes);
        MtdCommand mtd = roamingNodes > 0 ? mtdScenario(results.dir(), seconds) : null;
        int skippedSeq = seqLostOnPurpose();
        try (LoadPath fleet = LoadPath.open(protocol.path(), stack, nodes, out, ClientConfig.DEFAULT);
             TopicFollower appReader = new TopicFollower(stack.bootstrap, Topics.DEFAULT.app(stack.channel), AppMessage.class,
                     app::read, out)) {
            RoundTrips trips = fleet.trips();
            boolean[] running = {true};
            long began = System.nanoTime();
            Thread sampler = new Thread(() -> trips.everySecond(() -> running[0], echoes -> {
                synchronized (timeline) {
                    timeline.add(new Second(timeline.size() + 1, echoes.delivered(), echoes.p50Ms(), echoes.p99Ms(),
                            trips.sent.get(), fleet.shed(), trips.reordered.get()));
                }
                return true;
            }), "faults-sampler");
            sampler.setDaemon(true);
            sampler.start();
            Thread load = new Thread(() -> {
                try {
                    Schedule.runFor(nodes, seconds, rate * 60 / nodes, Schedule.Arrivals.CONSTANT, (node, seq) -> {
                        if (node >= loseOnPurpose || seq != skippedSeq) {
                            fleet.send(node, seq);
                        }
                    }, trips.sent, () -> { });
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "faults-load");
            FutureTask<MtdRun.Result> roaming = new FutureTask<>(() -> mtd.run(MtdCommand.Configuration.named("mtd_2")));
            if (mtd != null) {
                new Thread(roaming, "faults-mtd").start();
            }
            load.start();
            Random bursts = new Random(seed);
            for (FaultPlan.Fault fault : plan.faults()) {
                long due = began + (long) (fault.atSeconds() * 1e9);
                TimeUnit.NANOSECONDS.sleep(Math.max(0, due - System.nanoTime()));
                struck.add(strike(fault, fleet, bursts, began));
            }
            load.join();
            out.println("load over; waiting for the last echoes...");
            trips.awaitEchoes(drainSeconds, () -> { });
            running[0] = false;
            sampler.join(2_000);
            MtdRun.Result roamed = mtd == null ? null : roaming.get();
            List<Second> seconds0;
            synchronized (timeline) {
                seconds0 = List.copyOf(timeline);
            }
            writeCsv(results.dir().resolve("faults.csv"), seconds0, struck);
            List<String> lines = new ArrayList<>();
            long maxRecovery = 0;
            boolean allRecovered = true;
            double firstFault = struck.isEmpty() ? seconds0.size() : struck.get(0).atSeconds();
            double baselineP99 = baselineP99Ms(seconds0, firstFault);
            double baselineLimit = Double.isNaN(baselineP99) ? P99_LIMIT_MS : Math.max(P99_LIMIT_MS, baselineP99);
            for (int i = 0; i < struck.size(); i++) {
                Struck s = struck.get(i);
                double until = i + 1 < struck.size() ? struck.get(i + 1).atSeconds() : seconds0.size();
                Long recovery = recoveryMs(seconds0, s.recoveryFrom(), until, rate, P99_LIMIT_MS);
                allRecovered &= recovery != null && recovery <= recoveryLimitSeconds * 1000L && s.failure() == null;
                maxRecovery = Math.max(maxRecovery, recovery == null ? Long.MAX_VALUE : recovery);
                lines.add(faultLine(s, recovery, recoveryMs(seconds0, s.recoveryFrom(), until, rate, baselineLimit),
                        reorderedBetween(seconds0, s.atSeconds(), until)));
            }
            lines.add(String.format(Locale.ROOT, "RESULT baseline_p99_ms=%.1f baseline_seconds=%d", baselineP99,
                    baseline(seconds0, firstFault).count()));
            Outcome outcome = new Outcome(plan.faults().size(), plan.kinds(),
                    trips.sent.get() + (roamed == null ? 0 : roamed.sent()),
                    trips.lost() + (roamed == null ? 0 : roamed.unaccounted()),
                    fleet.shed() + (roamed == null ? 0 : roamed.unsent()),
                    trips.answeredTwice.get(), app.duplicates.get(),
                    fleet.duplicatesDroppedByNodes() + (roamed == null ? 0 : roamed.duplicatesDropped()),
                    trips.duplicates.get() + (roamed == null ? 0 : roamed.duplicates()),
                    roamed == null ? 0 : roamed.expiredDelivered(), trips.reordered.get(),
                    maxRecovery == Long.MAX_VALUE ? -1 : maxRecovery, allRecovered);
            lines.add(outcome.resultLine());
            if (roamed != null) {
                lines.add(String.format(Locale.ROOT, "RESULT scenario=faults-mtd nodes=%d away_s=%d ttl_ms=%d sent=%d "
                                + "answered=%d expired=%d expired_early=%d delivered_late=%d "
                                + "expired_receipt_after_delivery=%d dropped=%d lost=%d mn_duplicates=%d unsent=%d "
                                + "app_send_failed=%d absences=%d", roamingNodes, awaySeconds, ttlMs, roamed.sent(),
                        roamed.replied(), roamed.expired(), roamed.expiredEarly(), roamed.arrivedLate(),
                        roamed.receivedAndExpired(), roamed.dropped(), roamed.unaccounted(), roamed.duplicates(),
                        roamed.unsent(), roamed.appSendFailed(), roamed.absences()));
            }
            Files.write(results.dir().resolve("faults.txt"), lines, StandardCharsets.UTF_8);
            Files.write(results.dir().resolve("anomalies.txt"), trips.anomalies(), StandardCharsets.UTF_8);
            lines.forEach(out::println);
            return outcome.passes() ? 0 : 1;
        } finally {
            if (mtd != null) {
                mtd.out.close();
            }
        }
    }

    /** What the run found, message by message; {@link #passes} if nothing was lost, repeated, late or slow. */
    record Outcome(int faults, long kinds, long sent, long lost, long unsent, long appDuplicates, long appTopicDuplicates,
                   long mnDuplicatesBeforeDedupe, long mnDuplicatesAfterDedupe, long expiredDelivered, long reordered,
                   long maxRecoveryMs, boolean allRecovered) {

        boolean passes() {
            return lost == 0 && unsent == 0 && appDuplicates == 0 && mnDuplicatesAfterDedupe == 0 && expiredDelivered == 0
                    && reordered == 0 && allRecovered;
        }

        String resultLine() {
            return String.format(Locale.ROOT, "RESULT faults=%d kinds=%d sent=%d lost=%d unsent=%d app_duplicates=%d "
                            + "mn_duplicates_after_dedupe=%d expired_delivered=%d reordered=%d max_recovery_ms=%s "
                            + "mn_duplicates_before_dedupe=%d app_topic_duplicates=%d all_recovered=%b", faults, kinds, sent,
                    lost, unsent, appDuplicates, mnDuplicatesAfterDedupe, expiredDelivered, reordered,
                    maxRecoveryMs < 0 ? "none" : String.valueOf(maxRecoveryMs), mnDuplicatesBeforeDedupe,
                    appTopicDuplicates, allRecovered);
        }
    }

    /** Injects one fault and waits it out; a fault the injector could not bring about is kept with why. */
    private Struck strike(FaultPlan.Fault fault, LoadPath fleet, Random bursts, long began) throws InterruptedException {
        injector.beforeFault(fault.kind());
        double at = secondsSince(began);
        out.printf(Locale.ROOT, "%.1f s: fault %d, %s%n", at, fault.index(), fault.describe());
        NodesBack back = fault.kind() == FaultPlan.Kind.GATEWAY_KILL
                ? NodesBack.watch(fleet, nodes, fault.gateway()) : null;
        String failure = null;
        try {
            switch (fault.kind()) {
                case TASKMANAGER_KILL -> injector.killTaskManager(out);
                case BROKER_STOP -> injector.stopBroker(false, out);
                case BROKER_KILL -> injector.stopBroker(true, out);
                case GATEWAY_KILL -> injector.killGateway(fault.gateway(), out);
                case RECONNECT_BURST -> burst(fleet, bursts);
                case PACKET_LOSS, RATE_LIMIT -> {
                    boolean loss = fault.kind() == FaultPlan.Kind.PACKET_LOSS;
                    injector.impair(fault.gateway(), loss ? lossPercent : 0, loss ? 0 : rateLimitKbit, out);
                    try {
                        TimeUnit.SECONDS.sleep(impairmentSeconds);
                    } finally {
                        injector.lift(out);
                    }
                }
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            failure = e.toString();
            out.println("  the injection failed: " + failure);
        }
        double over = secondsSince(began);
        NodesBack.Result nodesBack = back == null ? null : back.await(30);
        out.printf(Locale.ROOT, "%.1f s: fault %d over%s%n", over, fault.index(),
                nodesBack == null || nodesBack.allMs() == null ? "" : String.format(Locale.ROOT,
                        "; its nodes connected again: half after %.0f ms, all after %.0f ms", nodesBack.halfMs(),
                        nodesBack.allMs()));
        String causes = back == null ? "" : fleet.droppedSessionCauses();
        if (!causes.isEmpty()) {
            // why the slowest came back late: 10 connects unanswered (connect_failed) take 17.5-26 s of retries
            out.println("  sessions ended since the load began, by cause: " + causes);
        }
        return new Struck(fault, at, over, failure, nodesBack);
    }

    /** A share of the nodes, drawn anew each time, lose their link at once. */
    private void burst(LoadPath fleet, Random random) {
        int count = (int) Math.round(nodes * burstShare);
        int[] all = java.util.stream.IntStream.range(0, nodes).toArray();
        for (int i = 0; i < count; i++) {
            int j = i + random.nextInt(all.length - i);
            int node = all[j];
            all[j] = all[i];
            all[i] = node;
            fleet.linkLost(node);
        }
        out.println("  " + count + " nodes lost their link");
    }

    /**
     * Watches the nodes of a killed gateway: when half of them, and when all, had a session again. A node notices only
     * when a frame of its own goes unanswered, so the last ones back are those that sent last. Each is timed in two
     * parts: from the kill until it gave the gateway up (its idle time until it next sent, and its probes), and from
     * then until its new session was open (the wait before it moves, the handshake, the connect). Where the path keeps
     * its nodes' session times (UDP nodes), these are the nodes that had a session on the gateway as it was killed;
     * elsewhere (MQTT devices), the count of connected nodes: back when it is whole again after it fell.
     */
    static final class NodesBack {
        private final Thread watcher;
        private final long start;
        private final LoadPath fleet;
        private final int nodes;
        /** The nodes on the killed gateway, or null where the path cannot say. */
        private final int[] struck;
        private volatile Double halfMs;
        private volatile Double backMs;
        /** The struck nodes' session times as the last of them was back: later losses are not the kill's. */
        private volatile long[][] timesWhenBack;
        /** The struck nodes' round trips, or null where the path cannot say which nodes were struck. */
        private final RoundTrips.Watch trips;

        /**
         * What one gateway kill did to the nodes, in ms from the kill; the parts are null where no node was timed.
         * {@code trips}: the round trips of the messages its nodes sent from a second before the kill until they were
         * all back (null where the path cannot say which nodes were struck), read when the run ends so that the
         * latest echoes count.
         */
        record Result(Integer struckNodes, Double halfMs, Double allMs, Double gaveUpMaxMs, Double reconnectP50Ms,
                      Double reconnectMaxMs, RoundTrips.Watch trips) {
        }

        private NodesBack(LoadPath fleet, int nodes, String gateway) {
            this.fleet = fleet;
            this.nodes = nodes;
            this.struck = fleet.nodesOn(gateway);
            this.start = System.nanoTime();
            // Why a second before: the messages in flight as the gateway died are the kill's too.
            this.trips = struck == null ? null : fleet.trips().watch(struck, start - TimeUnit.SECONDS.toNanos(1));
            this.watcher = new Thread(struck == null ? this::watchCount : this::watchStruck, "faults-nodes-back");
            watcher.setDaemon(true);
        }

        static NodesBack watch(LoadPath fleet, int nodes, String gateway) {
            NodesBack back = new NodesBack(fleet, nodes, gateway);
            back.watcher.start();
            return back;
        }

        /** Until each struck node has a session opened after the kill; half and all from when they opened. */
        private void watchStruck() {
            long deadline = start + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                List<Double> openedMs = new ArrayList<>();
                long[][] times = new long[struck.length][];
                for (int i = 0; i < struck.length; i++) {
                    times[i] = fleet.sessionLostAndOpenedNanos(struck[i]);
                    if (times[i][1] != Long.MIN_VALUE && times[i][1] - start > 0 && times[i][1] - times[i][0] > 0) {
                        openedMs.add((times[i][1] - start) / 1e6);
                    }
                }
                if (openedMs.size() == struck.length) {
                    trips.sentUntil(System.nanoTime());
                    timesWhenBack = times;
                    Collections.sort(openedMs);
                    halfMs = openedMs.isEmpty() ? null : openedMs.get((openedMs.size() - 1) / 2);
                    backMs = openedMs.isEmpty() ? null : openedMs.get(openedMs.size() - 1);
                    return;
                }
                if (!pause()) {
                    return;
                }
            }
        }

        private void watchCount() {
            int fewest = nodes;
            long deadline = start + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                int connected = fleet.connected();
                fewest = Math.min(fewest, connected);
                double ms = (System.nanoTime() - start) / 1e6;
                if (fewest < nodes && halfMs == null && connected - fewest >= (nodes - fewest + 1) / 2) {
                    halfMs = ms;
                }
                if (fewest < nodes && connected >= nodes) {
                    backMs = ms;
                    return;
                }
                if (!pause()) {
                    return;
                }
            }
        }

        private static boolean pause() {
            try {
                Thread.sleep(20);
                return true;
            } catch (InterruptedException e) {
                return false;
            }
        }

        /** Waits up to {@code seconds} for every node to be connected again; what it saw by then. */
        Result await(int seconds) throws InterruptedException {
            watcher.join(TimeUnit.SECONDS.toMillis(seconds));
            List<Double> gaveUp = new ArrayList<>();
            List<Double> reconnect = new ArrayList<>();
            long[][] back = timesWhenBack;
            int[] timed = struck != null ? struck : java.util.stream.IntStream.range(0, nodes).toArray();
            for (int i = 0; i < timed.length; i++) {
                long[] times = back != null ? back[i] : fleet.sessionLostAndOpenedNanos(timed[i]);
                if (times == null || times[0] == Long.MIN_VALUE || times[0] - start < 0) {
                    continue;
                }
                gaveUp.add((times[0] - start) / 1e6);
                if (times[1] != Long.MIN_VALUE && times[1] - times[0] > 0) {
                    reconnect.add((times[1] - times[0]) / 1e6);
                }
            }
            Collections.sort(reconnect);
            return new Result(struck == null ? null : struck.length, halfMs, backMs,
                    gaveUp.isEmpty() ? null : Collections.max(gaveUp),
                    reconnect.isEmpty() ? null : reconnect.get((reconnect.size() - 1) / 2),
                    reconnect.isEmpty() ? null : reconnect.get(reconnect.size() - 1), trips);
        }
    }

    private static double secondsSince(long began) {
        return (System.nanoTime() - began) / 1e9;
    }

    /** The number of the message that each of the first {@code --lose-on-purpose} nodes never sends: one mid-run. */
    private int seqLostOnPurpose() {
        return Math.max(1, (int) (rate / nodes * firstFaultSeconds));
    }

    /**
     * Milliseconds from {@code fromSeconds} to the end of the first whole second after it (and before
     * {@code untilSeconds}) whose echoes are within {@link #LOAD_TOLERANCE} of that second's load with p99 under
     * {@code p99LimitMs} ({@link #P99_LIMIT_MS} for the recovery the run is judged by); null if none. A second's load
     * is what the nodes sent in it ({@code load}, the nominal rate, for the first second): the sends of nodes that
     * each send every few seconds ripple by a fifth around the nominal rate, so a healthy second is often more than
     * 10% off it, never off its own sends.
     */
    static Long recoveryMs(List<Second> timeline, double fromSeconds, double untilSeconds, double load,
                           double p99LimitMs) {
        long sentBefore = -1;
        for (Second s : timeline) {
            double offered = sentBefore < 0 ? load : s.sent() - sentBefore;
            sentBefore = s.sent();
            if (s.second() - 1 < fromSeconds) {
                continue;
            }
            if (s.second() > untilSeconds) {
                return null;
            }
            if (Math.abs(s.delivered() - offered) <= LOAD_TOLERANCE * offered && s.p99Ms() < p99LimitMs) {
                return Math.round((s.second() - fromSeconds) * 1000);
            }
        }
        return null;
    }

    /**
     * What this machine does without faults: the median of the per-second p99s of the whole seconds in the
     * last {@link #BASELINE_SECONDS} before the first fault, after {@link #BASELINE_FROM_SECOND}; NaN if there
     * are none. A recovery to under 100 ms means nothing on a day whose baseline is above it, so each fault also
     * says when it was back to this.
     */
    static double baselineP99Ms(List<Second> timeline, double firstFaultSeconds) {
        double[] p99s = baseline(timeline, firstFaultSeconds).mapToDouble(Second::p99Ms).sorted().toArray();
        return p99s.length == 0 ? Double.NaN : p99s[p99s.length / 2];
    }

    private static java.util.stream.Stream<Second> baseline(List<Second> timeline, double firstFaultSeconds) {
        double after = Math.max(BASELINE_FROM_SECOND, firstFaultSeconds - BASELINE_SECONDS);
        return timeline.stream().filter(s -> s.second() > after && s.second() <= firstFaultSeconds
                && !Double.isNaN(s.p99Ms()));
    }

    /** Echoes that came after a later one of their node, from the second {@code from} struck to {@code until}. */
    static long reorderedBetween(List<Second> timeline, double from, double until) {
        long before = 0;
        long by = 0;
        for (Second s : timeline) {
            if (s.second() <= from) { // second s is the interval (s - 1, s]
                before = s.reordered();
            }
            if (s.second() <= until) {
                by = s.reordered();
            }
        }
        return by - before;
    }

    private static String faultLine(Struck s, Long recovery, Long toBaseline, long reordered) {
        return String.format(Locale.ROOT, "RESULT fault=%d kind=%s target=%s at_s=%.1f over_s=%.1f recovery_ms=%s "
                        + "to_baseline_ms=%s reordered=%d%s%s",
                s.fault().index(), s.fault().kind().label(), s.fault().gateway() == null ? "-" : s.fault().gateway(),
                s.atSeconds(), s.overSeconds(), recovery == null ? "none" : String.valueOf(recovery),
                toBaseline == null ? "none" : String.valueOf(toBaseline), reordered,
                nodesBack(s.nodesBack()),
                s.failure() == null ? "" : " failed=" + s.failure().replace(' ', '_'));
    }

    /** The RESULT fields of a gateway kill's nodes; none for another fault. */
    private static String nodesBack(NodesBack.Result back) {
        if (back == null) {
            return "";
        }
        return (back.struckNodes() == null ? "" : " nodes_struck=" + back.struckNodes())
                + " nodes_half_back_ms=" + ms(back.halfMs()) + " nodes_back_ms=" + ms(back.allMs())
                + " nodes_gave_up_max_ms=" + ms(back.gaveUpMaxMs()) + " nodes_reconnect_p50_ms="
                + ms(back.reconnectP50Ms()) + " nodes_reconnect_max_ms=" + ms(back.reconnectMaxMs())
                + (back.trips() == null ? "" : tripsOf(back.trips().histogram()));
    }

    /** The struck nodes' round trips: how many, p99 and the longest, in ms. */
    private static String tripsOf(org.HdrHistogram.Histogram rtts) {
        return rtts.getTotalCount() == 0 ? " nodes_rtt_count=0" : String.format(Locale.ROOT,
                " nodes_rtt_count=%d nodes_rtt_p99_ms=%.0f nodes_rtt_max_ms=%.0f", rtts.getTotalCount(),
                rtts.getValueAtPercentile(99) / 1000.0, rtts.getMaxValue() / 1000.0);
    }

    private static String ms(Double value) {
        return value == null ? "none" : String.format(Locale.ROOT, "%.0f", value);
    }

    /** The paper's mtd_2 over every gateway, sized to last as long as the load; nodes come back at another gateway. */
    private MtdCommand mtdScenario(Path dir, int seconds) throws IOException {
        return MtdCommand.besideLoad(stack, protocol, dir, roamingNodes, seconds, ttlMs, awaySeconds, true);
    }

    /** The timeline in the layout of {@code rescale.csv}, each fault marked in the second it struck. */
    private static void writeCsv(Path file, List<Second> timeline, List<Struck> struck) throws IOException {
        List<String> lines = new ArrayList<>(List.of(CSV_HEADER));
        long sentBefore = 0;
        long unsentBefore = 0;
        long reorderedBefore = 0;
        for (Second s : timeline) {
            String mark = String.join(" ", struck.stream().filter(f -> (int) Math.ceil(f.atSeconds()) == s.second())
                    .map(f -> f.fault().index() + ":" + f.fault().describe()).toList());
            lines.add(String.format(Locale.ROOT, "%d,%d,%.3f,%.3f,%s,%d,%d,%d", s.second(), s.delivered(), s.p50Ms(),
                    s.p99Ms(), mark, s.sent() - sentBefore, s.unsent() - unsentBefore, s.reordered() - reorderedBefore));
            sentBefore = s.sent();
            unsentBefore = s.unsent();
            reorderedBefore = s.reordered();
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
