package io.ckc.gateway.core;

import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.ConnectionReport;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.ReceiptBatch;
import io.ckc.protocol.records.UnsentMessage;

import java.util.concurrent.CompletionStage;

/** Everything a gateway writes to the core. The returned stages complete when the write is durable. */
public interface CorePublisher extends AutoCloseable {

    CompletionStage<Void> appMessage(AppMessage message);

    CompletionStage<Void> context(ContextReport report);

    CompletionStage<Void> groupcast(Groupcast groupcast);

    CompletionStage<Void> event(MnEvent event);

    CompletionStage<Void> unsent(UnsentMessage unsent);

    CompletionStage<Void> deadLetter(DeadLetter deadLetter);

    /**
     * Nodes acknowledged unicasts the delivery job routed (or a link can never deliver one): their DELIVERED (DROPPED)
     * receipts, one record on ckc.delivered, sent until Kafka has it.
     */
    CompletionStage<Void> delivered(ReceiptBatch receipts);

    CompletionStage<Void> hello(HelloPoA hello);

    CompletionStage<Void> load(LoadReport report);

    CompletionStage<Void> connections(ConnectionReport report);

    /** Whether the application topic for this channel exists; never blocks. */
    boolean channelExists(String channel);

    @Override
    void close();
}
