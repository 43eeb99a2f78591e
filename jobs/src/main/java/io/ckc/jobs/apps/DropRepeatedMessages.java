package io.ckc.jobs.apps;

import io.ckc.protocol.records.AppMessage;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import java.time.Duration;

/**
 * For applications written as Flink jobs: keyed by node id, passes each node's message on once. A
 * gateway that crashed after Kafka had a message but before the node heard so, or a node that sent
 * again what its dead gateway never acknowledged, puts one message on {@code app.<channel>} twice,
 * with the same message id. The ids seen are kept per node for {@code remember}, in state that
 * expires by itself (Flink state TTL), so it stays bounded by the rate of messages times that time.
 * Use it as {@code messages.keyBy(AppMessage::mnId).process(new DropRepeatedMessages(Duration.ofMinutes(10)))}.
 */
public final class DropRepeatedMessages extends KeyedProcessFunction<String, AppMessage, AppMessage> {

    private final Duration remember;
    private transient MapState<String, Boolean> seen;
    private transient Counter repeated;

    public DropRepeatedMessages(Duration remember) {
        this.remember = remember;
    }

    @Override
    public void open(OpenContext openContext) {
        MapStateDescriptor<String, Boolean> descriptor = new MapStateDescriptor<>("seen-message-ids", String.class,
                Boolean.class);
        descriptor.enableTimeToLive(StateTtlConfig.newBuilder(remember)
                .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
                .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                .build());
        seen = getRuntimeContext().getMapState(descriptor);
        repeated = getRuntimeContext().getMetricGroup().counter("repeatedMessagesDropped");
    }

    @Override
    public void processElement(AppMessage message, Context ctx, Collector<AppMessage> out) throws Exception {
        if (seen.contains(message.messageId())) {
            repeated.inc();
            return;
        }
        seen.put(message.messageId(), Boolean.TRUE);
        out.collect(message);
    }
}
