package io.ckc.fuzz;

import io.ckc.gateway.core.CorePublisher;
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

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A gateway core's Kafka side for fuzzing: every write succeeds at once and is forgotten, so a target can run
 * millions of inputs; {@code app.echo} is the one channel that exists.
 */
public final class DiscardingPublisher implements CorePublisher {

    public static final String CHANNEL = "echo";

    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    @Override public CompletionStage<Void> appMessage(AppMessage message) { return DONE; }
    @Override public CompletionStage<Void> context(ContextReport report) { return DONE; }
    @Override public CompletionStage<Void> groupcast(Groupcast groupcast) { return DONE; }
    @Override public CompletionStage<Void> event(MnEvent event) { return DONE; }
    @Override public CompletionStage<Void> unsent(UnsentMessage unsent) { return DONE; }
    @Override public CompletionStage<Void> deadLetter(DeadLetter deadLetter) { return DONE; }
    @Override public CompletionStage<Void> delivered(ReceiptBatch receipts) { return DONE; }
    @Override public CompletionStage<Void> hello(HelloPoA hello) { return DONE; }
    @Override public CompletionStage<Void> load(LoadReport report) { return DONE; }
    @Override public CompletionStage<Void> connections(ConnectionReport report) { return DONE; }

    @Override
    public boolean channelExists(String channel) {
        return CHANNEL.equals(channel);
    }

    @Override
    public void close() {
    }
}
