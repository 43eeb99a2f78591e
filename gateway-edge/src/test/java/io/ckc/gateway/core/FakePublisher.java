package io.ckc.gateway.core;

import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.ConnectionReport;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.ReceiptBatch;
import io.ckc.protocol.records.UnsentMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A publisher that keeps what the core writes, in order. Writes complete at once unless the test
 * holds them ({@link #hold}); a held write completes when the test says ({@link #completeHeld}).
 */
public final class FakePublisher implements CorePublisher {

    public final List<Object> records = new CopyOnWriteArrayList<>();
    private final List<CompletableFuture<Void>> held = new CopyOnWriteArrayList<>();
    private final Set<String> channels;
    private volatile boolean holding;
    private volatile RuntimeException failing;

    public FakePublisher(Set<String> channels) {
        this.channels = channels;
    }

    /** From now on writes stay pending until {@link #completeHeld} or {@link #failHeld}. */
    public void hold() {
        holding = true;
    }

    /** From now on (null: no longer) writes fail at once with {@code error}, as a producer's without a broker do. */
    public void failAtOnce(RuntimeException error) {
        failing = error;
    }

    public void completeHeld() {
        List<CompletableFuture<Void>> pending = new ArrayList<>(held);
        held.clear();
        pending.forEach(f -> f.complete(null));
    }

    public void failHeld(RuntimeException error) {
        List<CompletableFuture<Void>> pending = new ArrayList<>(held);
        held.clear();
        pending.forEach(f -> f.completeExceptionally(error));
    }

    public <T> List<T> of(Class<T> type) {
        return records.stream().filter(type::isInstance).map(type::cast).toList();
    }

    private CompletionStage<Void> keep(Object record) {
        records.add(record);
        return written();
    }

    private CompletionStage<Void> written() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (failing != null) {
            done.completeExceptionally(failing);
        } else if (holding) {
            held.add(done);
        } else {
            done.complete(null);
        }
        return done;
    }

    @Override public CompletionStage<Void> appMessage(AppMessage message) { return keep(message); }
    @Override public CompletionStage<Void> context(ContextReport report) { return keep(report); }
    @Override public CompletionStage<Void> groupcast(Groupcast groupcast) { return keep(groupcast); }
    @Override public CompletionStage<Void> event(MnEvent event) { return keep(event); }
    @Override public CompletionStage<Void> unsent(UnsentMessage unsent) { return keep(unsent); }
    @Override public CompletionStage<Void> deadLetter(DeadLetter deadLetter) { return keep(deadLetter); }
    /** Keeps the batch, then its receipts one by one, as the delivery job reads them ({@code of(Receipt.class)}). */
    @Override public CompletionStage<Void> delivered(ReceiptBatch receipts) {
        records.add(receipts);
        records.addAll(receipts.receipts());
        return written();
    }
    @Override public CompletionStage<Void> hello(HelloPoA hello) { return keep(hello); }
    @Override public CompletionStage<Void> load(LoadReport report) { return keep(report); }
    @Override public CompletionStage<Void> connections(ConnectionReport report) { return keep(report); }

    @Override
    public boolean channelExists(String channel) {
        return channels.contains(channel);
    }

    @Override
    public void close() {
    }
}
