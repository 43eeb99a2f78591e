package io.ckc.jobs.poa;

import io.ckc.jobs.JobDirectories;
import io.ckc.jobs.Scaling;
import io.ckc.jobs.io.RecordParser;
import io.ckc.jobs.io.KafkaIo;
import io.ckc.jobs.poa.functions.BalanceGateways;
import io.ckc.jobs.poa.functions.ParsePoaInput;
import io.ckc.jobs.poa.functions.TrackGateway;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.BalanceRound;
import io.ckc.protocol.records.ConnectionStatistics;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.GatewayList;
import io.ckc.protocol.records.MnEvent;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ParameterTool;

import java.util.List;

/**
 * The {@code poa-manager} job (paper section 5). Keyed by gateway it tracks HelloPoA, LoadReports
 * and ping windows, computes Connection Statistics ({@code ckc.gw.stats}) and liveness; one global
 * step ranks the active gateways, writes the gateway list ({@code ckc.gw.list}), reconfigures ping
 * windows, and balances nodes by handover commands on the gateways' own topics, summarising each
 * round on {@code ckc.gw.rounds}. When a gateway stops reporting, each of its nodes' sessions there is declared
 * over on {@code ckc.mn.events} (GATEWAY_LOST), for the delivery job. Operators drain a gateway with a record
 * on {@code ckc.poa.control}.
 *
 * <p>Flags: {@code --parallelism}, {@code --max-parallelism} (see {@link Scaling}) of the per-gateway step (the global step runs at 1), every flag of
 * {@link PoaSettings} and of {@link KafkaIo}.
 */
public final class PoaManagerJob {

    public static final String NAME = "ckc-poa-manager";

    private final Source<RawRecord, ?, ?> source;
    private final Sink<GatewayOrder> orders;
    private final Sink<ConnectionStatistics> statistics;
    private final Sink<GatewayList> gatewayList;
    private final Sink<BalanceRound> rounds;
    private final Sink<MnEvent> lostSessions;
    private final Sink<DeadLetter> deadLetters;
    private final Topics topics;
    private final PoaSettings settings;
    private final Scaling scaling;

    public PoaManagerJob(Source<RawRecord, ?, ?> source, Sink<GatewayOrder> orders, Sink<ConnectionStatistics> statistics,
                         Sink<GatewayList> gatewayList, Sink<BalanceRound> rounds, Sink<MnEvent> lostSessions,
                         Sink<DeadLetter> deadLetters, Topics topics, PoaSettings settings, Scaling scaling) {
        this.source = source;
        this.orders = orders;
        this.statistics = statistics;
        this.gatewayList = gatewayList;
        this.rounds = rounds;
        this.lostSessions = lostSessions;
        this.deadLetters = deadLetters;
        this.topics = topics;
        this.settings = settings;
        this.scaling = scaling;
    }

    public static PoaManagerJob fromArgs(ParameterTool params) {
        KafkaIo kafka = KafkaIo.fromArgs(params);
        Topics topics = kafka.topics();
        return new PoaManagerJob(
                kafka.source("ckc-poa-manager", List.of(topics.gatewayHello(), topics.gatewayLoad(),
                        topics.gatewayConnections(), topics.poaControl())),
                kafka.<GatewayOrder>sink("poa-orders", o -> topics.gateway(o.gatewayId()), GatewayOrder::key,
                        GatewayOrder::command),
                kafka.<ConnectionStatistics>sink("poa-stats", s -> topics.gatewayStats(), ConnectionStatistics::gatewayId,
                        s -> s),
                kafka.<GatewayList>sink("poa-list", l -> topics.gatewayList(), l -> GatewayList.KEY, l -> l),
                kafka.<BalanceRound>sink("poa-rounds", r -> topics.balanceRounds(), r -> String.valueOf(r.round()),
                        r -> r),
                kafka.<MnEvent>sink("poa-lost-sessions", e -> topics.mnEvents(), MnEvent::mnId, e -> e),
                kafka.deadLetterSink("poa-manager"),
                topics,
                PoaSettings.fromArgs(params),
                Scaling.fromArgs(params, -1));
    }

    public void build(StreamExecutionEnvironment env) {
        scaling.applyTo(env);
        JobDirectories.applyTo(env, NAME);
        SingleOutputStreamOperator<PoaInput> inputs = env
                .fromSource(source, WatermarkStrategy.noWatermarks(), "kafka: gateway reports")
                .uid("poa-source")
                .process(new ParsePoaInput(topics))
                .uid("poa-parse")
                .name("parse gateway reports");
        SingleOutputStreamOperator<GatewayView> views = inputs
                .keyBy(PoaInput::gatewayId)
                .process(new TrackGateway(settings))
                .uid("poa-track-gateway")
                .name("statistics and liveness per gateway");
        SingleOutputStreamOperator<GatewayOrder> balanced = views
                .keyBy(view -> BalanceGateways.ALL)
                .process(new BalanceGateways(settings))
                .setParallelism(1)
                .setMaxParallelism(1) // one global step: no rescale, by savepoint or in place, may widen it
                .uid("poa-balance")
                .name("rank, list, reconfigure pings, balance");
        balanced.sinkTo(orders).setParallelism(1).setMaxParallelism(1).uid("poa-orders-sink").name("kafka: ckc.gw.<gateway>");
        balanced.getSideOutput(BalanceGateways.GATEWAY_LIST).sinkTo(gatewayList).setParallelism(1).setMaxParallelism(1)
                .uid("poa-list-sink").name("kafka: gateway list");
        balanced.getSideOutput(BalanceGateways.ROUNDS).sinkTo(rounds).setParallelism(1).setMaxParallelism(1)
                .uid("poa-rounds-sink").name("kafka: balance rounds");
        balanced.getSideOutput(BalanceGateways.LOST_SESSIONS).sinkTo(lostSessions).setParallelism(1)
                .setMaxParallelism(1).uid("poa-lost-sessions-sink")
                .name("kafka: ckc.mn.events (sessions of lost gateways)");
        views.getSideOutput(TrackGateway.STATISTICS).sinkTo(statistics).uid("poa-stats-sink")
                .name("kafka: connection statistics");
        inputs.getSideOutput(RecordParser.DEAD_LETTERS).sinkTo(deadLetters).uid("poa-dead-letters")
                .name("kafka: dead letters");
    }

    public void execute(StreamExecutionEnvironment env) throws Exception {
        build(env);
        env.execute(NAME);
    }

    public static void main(String[] args) throws Exception {
        ParameterTool params = ParameterTool.fromArgs(args);
        fromArgs(params).execute(StreamExecutionEnvironment.getExecutionEnvironment());
    }
}
