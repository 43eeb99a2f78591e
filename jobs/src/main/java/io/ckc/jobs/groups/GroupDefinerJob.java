package io.ckc.jobs.groups;

import io.ckc.jobs.JobDirectories;
import io.ckc.jobs.Scaling;
import io.ckc.jobs.groups.functions.ApplyGroupSelection;
import io.ckc.jobs.groups.functions.ParseContextReport;
import io.ckc.jobs.io.RecordParser;
import io.ckc.jobs.io.KafkaIo;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.DeadLetter;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.udfs.GroupSelection;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ParameterTool;

import java.util.List;

/**
 * A {@code group-definer} job (paper section 7): keyed by mobile node, it applies one
 * {@link GroupSelection} to every ContextReport on {@code ckc.context} and writes a
 * GroupAdvertisement to the compacted {@code ckc.groups}, keyed by (definer id, node id), whenever
 * the node's groups change. Several definers run side by side as separate jobs, each with its own
 * selection and consumer group; a node's groups are the union over definers.
 *
 * <p>Flags (besides {@link KafkaIo}'s): {@code --selection} (grid-cell, battery-band, attribute, or
 * a GroupSelection class name; default grid-cell), {@code --selection-arg} (the selection's one
 * String argument, e.g. the grid's cell size in degrees), {@code --parallelism}, {@code --max-parallelism} (see {@link Scaling}).
 */
public final class GroupDefinerJob {

    public static final String NAME_PREFIX = "ckc-group-definer-";

    private final Source<RawRecord, ?, ?> source;
    private final Sink<GroupAdvertisement> sink;
    private final Sink<DeadLetter> deadLetters;
    private final GroupSelection selection;
    private final Scaling scaling;

    public GroupDefinerJob(Source<RawRecord, ?, ?> source, Sink<GroupAdvertisement> sink, Sink<DeadLetter> deadLetters,
                           GroupSelection selection, Scaling scaling) {
        this.source = source;
        this.sink = sink;
        this.deadLetters = deadLetters;
        this.selection = selection;
        this.scaling = scaling;
    }

    public static GroupDefinerJob fromArgs(ParameterTool params) {
        KafkaIo kafka = KafkaIo.fromArgs(params);
        GroupSelection selection = Selections.create(params.get("selection", "grid-cell"), params.get("selection-arg"));
        String name = NAME_PREFIX + selection.definerId();
        String groupsTopic = kafka.topics().groups(); // the sink's functions are shipped: capture the name only
        return new GroupDefinerJob(
                kafka.source(name, List.of(kafka.topics().context())),
                kafka.<GroupAdvertisement>sink(name, a -> groupsTopic, GroupAdvertisement::key, a -> a),
                kafka.deadLetterSink(name),
                selection,
                Scaling.fromArgs(params, -1));
    }

    public String name() {
        return NAME_PREFIX + selection.definerId();
    }

    public void build(StreamExecutionEnvironment env) {
        scaling.applyTo(env);
        JobDirectories.applyTo(env, name());
        SingleOutputStreamOperator<ContextReport> reports = env
                .fromSource(source, WatermarkStrategy.noWatermarks(), "kafka: ckc.context")
                .uid("group-definer-source")
                .process(new ParseContextReport())
                .uid("group-definer-parse")
                .name("parse context reports");
        reports.keyBy(ContextReport::mnId)
                .process(new ApplyGroupSelection(selection))
                .uid("group-definer-select")
                .name("groups of " + selection.definerId() + ", on change")
                .sinkTo(sink).uid("group-definer-sink").name("kafka: ckc.groups");
        reports.getSideOutput(RecordParser.DEAD_LETTERS).sinkTo(deadLetters).uid("group-definer-dead-letters")
                .name("kafka: dead letters");
    }

    public void execute(StreamExecutionEnvironment env) throws Exception {
        build(env);
        env.execute(name());
    }

    public static void main(String[] args) throws Exception {
        fromArgs(ParameterTool.fromArgs(args)).execute(StreamExecutionEnvironment.getExecutionEnvironment());
    }
}
