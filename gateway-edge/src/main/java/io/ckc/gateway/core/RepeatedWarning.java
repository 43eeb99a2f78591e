package io.ckc.gateway.core;

import org.slf4j.Logger;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A warning that can come hundreds of times a second (every Kafka write while the broker is away): logged the first
 * time, then at most once per interval with the count of those not logged. Why: one line per failed write put 300
 * lines a second into each gateway's log during a broker restart, on a machine that needs its cores to recover.
 * Thread-safe: event loops and the producer's thread report to the same instance.
 */
final class RepeatedWarning {

    private final Logger log;
    private final long intervalNanos;
    private final AtomicLong nextLogNanos;
    private final AtomicLong notLogged = new AtomicLong();
    private final LongSupplier nanoClock;

    RepeatedWarning(Logger log, long interval, TimeUnit unit) {
        this(log, interval, unit, System::nanoTime);
    }

    RepeatedWarning(Logger log, long interval, TimeUnit unit, LongSupplier nanoClock) {
        this.log = log;
        this.intervalNanos = unit.toNanos(interval);
        this.nanoClock = nanoClock;
        this.nextLogNanos = new AtomicLong(nanoClock.getAsLong());
    }

    /** Logs {@code message} (an SLF4J pattern) unless one was logged less than an interval ago. */
    void warn(String message, Object... args) {
        long now = nanoClock.getAsLong();
        long next = nextLogNanos.get();
        if (now - next >= 0 && nextLogNanos.compareAndSet(next, now + intervalNanos)) {
            long skipped = notLogged.getAndSet(0);
            if (skipped == 0) {
                log.warn(message, args);
            } else {
                log.warn(message + " ({} more like it since the last)", append(args, skipped));
            }
        } else {
            notLogged.incrementAndGet();
        }
    }

    private static Object[] append(Object[] args, Object last) {
        Object[] all = Arrays.copyOf(args, args.length + 1);
        all[args.length] = last;
        return all;
    }
}
