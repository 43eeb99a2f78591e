package io.ckc.jobs.echo;

import io.ckc.jobs.JobDirectories;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.jobs.Scaling;
import io.ckc.jobs.apps.DropRecentRepeats;
import io.ckc.jobs.io.RecordParser;
import io.ckc.jobs.io.KafkaIo;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.Unicast;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ParameterTool;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The paper's application node: answers every message on {@code app.echo} with a unicast of the
 * same payload back to its sender via {@code ckc.to-mn}. The reply's id is derived from the
 * request's, so a replayed request yields a duplicate the node drops; a request that reached
 * {@code app.echo} twice within {@link #REMEMBER_IDS} (a gateway crash, a node sending again what a dead gateway
 * never acknowledged) is answered once ({@link DropRecentRepeats}), with no keyed step: source to sink is one chain.
 *
 * <p>Flags (besides {@link KafkaIo}'s): {@code --parallelism}, {@code --max-parallelism} (see {@link Scaling}) (default 1), {@code --channel} (echo).
 */
public final class EchoJob {

    public static final String NAME = "ckc-echo";
    public static final String SENDER = "echo";
    /** How long the ids of the nodes' messages are remembered to answer each once (at least half of it): a node resends within seconds. */
    public static final Duration REMEMBER_IDS = Duration.ofMinutes(2);
    /** At most this many ids a subtask, 8 MB of arrays: at least 100,000, 5 s at 20,000 messages a second. */
    public static final int MAX_REMEMBERED_IDS = 200_000;

    /** Drops the repeats of the messages a subtask saw recently, in memory. */
    public static DropRecentRepeats dropRecentRepeats() {
        return new DropRecentRepeats(REMEMBER_IDS, MAX_REMEMBERED_IDS);
    }

    private final Source<RawRecord, ?, ?> source;
    private final Sink<Unicast> sink;
    private final Sink<DeadLetter> deadLetters;
    private final Scaling scaling;

    public EchoJob(Source<RawRecord, ?, ?> source, Sink<Unicast> sink, Sink<DeadLetter> deadLetters, Scaling scaling) {
        this.source = source;
        this.sink = sink;
        this.deadLetters = deadLetters;
        this.scaling = scaling;
    }

    public static EchoJob fromArgs(ParameterTool params) {
        KafkaIo kafka = KafkaIo.fromArgs(params);
        Topics topics = kafka.topics();
        String channel = params.get("channel", "echo");
        return new EchoJob(kafka.source("ckc-echo-app", List.of(topics.app(channel))),
                kafka.<Unicast>sink("echo", u -> topics.toMn(), Unicast::recipient, u -> u),
                kafka.deadLetterSink("echo"),
                Scaling.fromArgs(params, 1));
    }

    /**
     * The reply to one message: same payload, back to the sending node (on the reply topic it named, with its
     * correlation data), with an id derived from the request's.
     */
    public static Unicast replyTo(AppMessage message) {
        return message.answer(SENDER, message.payload());
    }

    /** Parses application messages; one without sender or payload is a dead letter. */
    static final class ParseAppMessage extends RecordParser<AppMessage> {
        ParseAppMessage() {
            super("echo");
        }

        @Override
        protected AppMessage parse(RecordFormat format, RawRecord record) throws IOException {
            return checked(read(format, record, AppMessage.class));
        }
    }

    public void build(StreamExecutionEnvironment env) {
        scaling.applyTo(env);
        JobDirectories.applyTo(env, NAME);
        SingleOutputStreamOperator<AppMessage> messages = env
                .fromSource(source, WatermarkStrategy.noWatermarks(), "kafka: app.echo")
                .uid("echo-source")
                .process(new ParseAppMessage())
                .uid("echo-parse")
                .name("parse app messages");
        messages.filter(dropRecentRepeats())
                .uid("echo-recent-repeats")
                .name("each node's message once")
                .map(EchoJob::replyTo)
                .uid("echo-reply")
                .name("reply")
                .sinkTo(sink)
                .uid("echo-sink")
                .name("kafka: ckc.to-mn");
        messages.getSideOutput(RecordParser.DEAD_LETTERS).sinkTo(deadLetters).uid("echo-dead-letters")
                .name("kafka: dead letters");
    }

    public void execute(StreamExecutionEnvironment env) throws Exception {
        build(env);
        env.execute(NAME);
    }

    public static void main(String[] args) throws Exception {
        fromArgs(ParameterTool.fromArgs(args)).execute(StreamExecutionEnvironment.getExecutionEnvironment());
    }
}
