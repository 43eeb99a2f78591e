package io.ckc.jobs.delivery;

import io.ckc.jobs.JobDirectories;
import io.ckc.jobs.Scaling;
import io.ckc.jobs.apps.DropRecentRepeats;
import io.ckc.jobs.delivery.functions.ExpandGroupcast;
import io.ckc.jobs.delivery.functions.ParseDeliveryInput;
import io.ckc.jobs.delivery.functions.RouteToGateway;
import io.ckc.jobs.delivery.functions.TrackMemberships;
import io.ckc.jobs.echo.EchoJob;
import io.ckc.jobs.io.RecordParser;
import io.ckc.jobs.io.KafkaIo;
import io.ckc.jobs.records.RawRecord;
import io.ckc.jobs.state.WriteBackOperator;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.GatewayCommand;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.Receipt;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ParameterTool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code delivery} job (paper sections 4.2 and 6): keyed by mobile node, it learns each node's
 * gateway from {@code ckc.mn.events} and routes unicasts from {@code ckc.to-mn} to that gateway's
 * topic {@code ckc.gw.<gatewayId>}, and holds each one until the node acknowledges it
 * ({@code ckc.delivered}): a new session of the node gets whatever its last one did not acknowledge.
 * Unicasts a gateway could not send ({@code ckc.unsent}) are routed again to the node's newer
 * session; for a node with no session they wait in the MTD buffer until it connects or they
 * expire. Receipts (delivered, expired, dropped) go to {@code ckc.receipts} keyed by sender.
 *
 * <p>Groups (paper section 7): advertisements from {@code ckc.groups} become joins and leaves of
 * single groups, indexed by group; a groupcast from {@code ckc.groupcast} is expanded there, metered,
 * into one unicast per member, which then takes the same path as any unicast.
 *
 * <p>An application inside the job: {@code --echo-channels a,b} has the job read {@code app.a} and {@code app.b} and
 * answer each node's message (once, {@link DropRecentRepeats}) as the echo application does, the answer going
 * straight to the routing: one broker pass less than an application on Kafka ({@code app} to {@code ckc.to-mn}).
 * Give it channels of its own: the echo job answers {@code app.echo}.
 *
 * <p>Flags (besides {@link KafkaIo}'s, {@link MtdSettings}' and {@link GroupcastSettings}'): {@code --parallelism}, {@code --max-parallelism} (see {@link Scaling}) (default:
 * the environment's), {@code --route-retention-ms} how long a closed route is remembered (default 3600000),
 * {@code --echo-channels} (none).
 * Checkpointing, state backend and restart strategy come from the Flink configuration.
 */
public final class DeliveryJob {

    public static final String NAME = "ckc-delivery";

    private final Source<RawRecord, ?, ?> source;
    private final Sink<Outbound> sink;
    private final Sink<Receipt> receipts;
    private final Sink<DeadLetter> deadLetters;
    private final Topics topics;
    private final MtdSettings mtd;
    private final GroupcastSettings groupcast;
    private final long routeRetentionMs;
    private final Scaling scaling;
    private final boolean echoInJob;

    /** @param echoInJob whether the source carries app messages that the job answers as the echo does */
    public DeliveryJob(Source<RawRecord, ?, ?> source, Sink<Outbound> sink, Sink<Receipt> receipts,
                       Sink<DeadLetter> deadLetters, Topics topics, MtdSettings mtd, GroupcastSettings groupcast,
                       long routeRetentionMs, Scaling scaling, boolean echoInJob) {
        this.source = source;
        this.sink = sink;
        this.receipts = receipts;
        this.deadLetters = deadLetters;
        this.topics = topics;
        this.mtd = mtd;
        this.groupcast = groupcast;
        this.routeRetentionMs = routeRetentionMs;
        this.scaling = scaling;
        this.echoInJob = echoInJob;
    }

    /** Builds the job from command-line flags with Kafka source and sinks. */
    public static DeliveryJob fromArgs(ParameterTool params) {
        KafkaIo kafka = KafkaIo.fromArgs(params);
        Topics topics = kafka.topics();
        List<String> sourceTopics = new ArrayList<>(List.of(topics.mnEvents(), topics.unsent(), topics.delivered(),
                topics.toMn(), topics.groups(), topics.groupcast()));
        List<String> echoChannels = params.has("echo-channels")
                ? Arrays.stream(params.get("echo-channels").split(",")).map(String::trim).filter(c -> !c.isEmpty()).toList()
                : List.of();
        for (String channel : echoChannels) {
            if (!Topics.isValidChannel(channel)) {
                throw new IllegalArgumentException("--echo-channels: '" + channel + "' is not a channel name");
            }
            sourceTopics.add(topics.app(channel));
        }
        return new DeliveryJob(
                kafka.source("ckc-delivery", sourceTopics),
                kafka.<Outbound>sink("delivery", o -> topics.gateway(o.gatewayId()), o -> o.unicast().recipient(),
                        o -> new GatewayCommand.Deliver(o.unicast(), o.epoch(), o.expiresAt())),
                kafka.<Receipt>sink("delivery-receipts", r -> topics.receipts(), Receipt::sender, r -> r),
                kafka.deadLetterSink("delivery"),
                topics,
                MtdSettings.fromArgs(params),
                GroupcastSettings.fromArgs(params),
                params.getLong("route-retention-ms", Duration.ofHours(1).toMillis()),
                Scaling.fromArgs(params, -1),
                !echoChannels.isEmpty());
    }

    /** Adds the job's operators to the environment. */
    public void build(StreamExecutionEnvironment env) {
        scaling.applyTo(env);
        JobDirectories.applyTo(env, NAME);
        SingleOutputStreamOperator<DeliveryInput> inputs = env
                .fromSource(source, WatermarkStrategy.noWatermarks(), "kafka: mn events + unsent + delivered + to-mn + groups")
                .uid("delivery-source")
                .process(new ParseDeliveryInput(topics))
                .uid("delivery-parse")
                .name("parse events, unicasts, groups");
        DataStream<MembershipChange> memberships = inputs.getSideOutput(ParseDeliveryInput.ADVERTISEMENTS)
                .keyBy(GroupAdvertisement::key)
                .process(new TrackMemberships())
                .uid("delivery-memberships")
                .name("group advertisements to joins and leaves");
        SingleOutputStreamOperator<Unicast> expanded = memberships
                .connect(inputs.getSideOutput(ParseDeliveryInput.GROUPCASTS))
                .keyBy(MembershipChange::group, Groupcast::group)
                .process(new ExpandGroupcast(groupcast))
                .uid("delivery-groupcast")
                .name("group index, metered groupcast expansion");
        DataStream<DeliveryInput> toRoute = inputs
                .union(expanded.map(DeliveryInput::of).uid("delivery-groupcast-unicasts").name("groupcast member as unicast"));
        if (echoInJob) {
            toRoute = toRoute.union(inputs.getSideOutput(ParseDeliveryInput.APP_MESSAGES)
                    .filter(EchoJob.dropRecentRepeats())
                    .uid("delivery-echo-recent-repeats")
                    .name("echo in the job: each node's message once")
                    .map(message -> DeliveryInput.of(EchoJob.replyTo(message)))
                    .uid("delivery-echo-reply")
                    .name("echo in the job: reply"));
        }
        SingleOutputStreamOperator<Outbound> routed = toRoute
                .keyBy(DeliveryInput::mnId)
                .transform("route to gateway, pending until acknowledged", TypeInformation.of(Outbound.class),
                        new WriteBackOperator<>(new RouteToGateway(mtd, routeRetentionMs)))
                .uid("delivery-route");
        routed.sinkTo(sink).uid("delivery-sink").name("kafka: ckc.gw.<gateway>");
        routed.getSideOutput(RouteToGateway.RECEIPTS)
                .union(expanded.getSideOutput(RouteToGateway.RECEIPTS))
                .sinkTo(receipts).uid("delivery-receipts")
                .name("kafka: ckc.receipts");
        inputs.getSideOutput(RecordParser.DEAD_LETTERS).sinkTo(deadLetters).uid("delivery-dead-letters")
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
