package io.ckc.perf;

import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code perf handoff}: what it costs on this machine to hand a message from one thread to another
 * that was waiting for it, the step every hop of a round trip repeats (a gateway's event loop to its
 * Kafka producer, a Flink source's fetcher to its task, a broker's network thread to its request
 * handler). One thread passes a token to a second, which passes it back, after the sender has been
 * idle for each gap: the longer both were idle, the more the wake-up costs where an idle core of a
 * virtual machine has to be woken by its host. It calibrates the machine, not CKC: a run on a machine
 * whose hand-offs cost ten times more shows every path, the bare-Kafka echo's too, slower, and the
 * path with more hand-offs the more.
 */
@Command(name = "handoff", mixinStandardHelpOptions = true,
        description = "Measures a thread-to-thread hand-off round trip after idle gaps: a calibration of the machine.")
final class HandoffCommand implements Callable<Integer> {

    @Option(names = "--gaps-ms", split = ",", defaultValue = "0,1,5,20",
            description = "Idle time before each round trip, ms (default ${DEFAULT-VALUE})")
    List<Integer> gapsMs;

    @Option(names = "--round-trips", defaultValue = "500", description = "Round trips per gap (default ${DEFAULT-VALUE})")
    int roundTrips;

    PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        SynchronousQueue<Long> there = new SynchronousQueue<>();
        SynchronousQueue<Long> back = new SynchronousQueue<>();
        Thread echo = new Thread(() -> {
            try {
                while (true) {
                    back.put(there.take());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "handoff-echo");
        echo.setDaemon(true);
        echo.start();
        try {
            for (int gap : gapsMs) {
                Histogram micros = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
                for (int i = 0; i < roundTrips; i++) {
                    if (gap > 0) {
                        Thread.sleep(gap); // the idle time is the point: both threads park, their cores may halt
                    }
                    long start = System.nanoTime();
                    there.put(start);
                    back.take();
                    micros.recordValue(Math.max(1, (System.nanoTime() - start) / 1_000));
                }
                out.printf(Locale.ROOT, "RESULT handoff gap_ms=%d round_trips=%d p50_us=%d p90_us=%d p99_us=%d mean_us=%.1f%n",
                        gap, roundTrips, micros.getValueAtPercentile(50), micros.getValueAtPercentile(90),
                        micros.getValueAtPercentile(99), micros.getMean());
            }
        } finally {
            echo.interrupt();
        }
        return 0;
    }
}
