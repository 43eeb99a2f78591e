package io.ckc.gateway.core;

import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.ConnectionReport;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.Receipt;
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

    /** A node acknowledged a unicast the delivery job routed: its DELIVERED receipt, on ckc.delivered. */
    CompletionStage<Void> delivered(Receipt receipt);

    CompletionStage<Void> hello(HelloPoA hello);

    CompletionStage<Void> load(LoadReport report);

    CompletionStage<Void> connections(ConnectionReport report);

    /** Whether the application topic for this channel exists; never blocks. */
    boolean channelExists(String channel);

    @Override
    void close();
}
