package io.ckc.protocol.kafka;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InterruptException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes a producer's linger adaptive, as Nagle's algorithm does for TCP: a record that finds nothing of the producer's
 * in flight goes at once (a flush on a thread of its own), one that arrives while earlier records are on their way
 * waits up to {@code linger.ms} to share a request with the records behind it. An idle pipeline pays no linger, and
 * under load each produce request carries many records instead of a few: the broker's cost is per request and per
 * partition in it, far more than per record.
 *
 * <p>The caller reports each record the producer took ({@link #sent}, after {@code send} returned) and each that it
 * completed ({@link #completed}, from the send's callback). Both are for any thread. {@link #close} before the producer
 * is closed.
 */
public final class IdleFlusher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(IdleFlusher.class);

    private final Producer<?, ?> producer;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Semaphore wanted = new Semaphore(0);
    private final Thread thread;
    private volatile boolean running = true;

    /** Starts its flushing thread, named {@code threadName}. */
    public IdleFlusher(Producer<?, ?> producer, String threadName) {
        this.producer = producer;
        this.thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    private IdleFlusher() {
        this.producer = null;
        this.thread = null;
    }

    /** One that only counts: every record lingers (for a producer whose completions a test decides). */
    public static IdleFlusher disabled() {
        return new IdleFlusher();
    }

    /**
     * Sends a record through this flusher's producer and reports it taken ({@link #sent}) and, before the callback
     * runs, completed ({@link #completed}): how CKC's producers send. A send the producer refuses by throwing was never
     * taken and reports nothing.
     */
    public <K, V> void send(Producer<K, V> through, ProducerRecord<K, V> record, Callback callback) {
        through.send(record, (metadata, error) -> {
            completed();
            callback.onCompletion(metadata, error);
        });
        sent();
    }

    /** The producer took a record: it goes at once if nothing else was in flight (then this returns true). */
    public boolean sent() {
        if (inFlight.getAndIncrement() != 0) {
            return false;
        }
        if (thread != null) {
            wanted.release();
        }
        return true;
    }

    /** A record the producer took was written or failed. */
    public void completed() {
        inFlight.decrementAndGet();
    }

    /** Records taken and not completed yet. */
    public int inFlight() {
        return inFlight.get();
    }

    private void run() {
        while (running) {
            try {
                wanted.acquire();
                wanted.drainPermits(); // one flush sends everything that asked for one before it
                if (running) {
                    producer.flush();
                }
            } catch (InterruptedException | InterruptException e) {
                return;
            } catch (RuntimeException e) {
                // Why: a failed record is its callback's business; this thread only makes records go sooner.
                LOG.debug("flush failed: {}", e.toString());
            }
        }
    }

    @Override
    public void close() {
        running = false;
        if (thread == null) {
            return;
        }
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
