package io.ckc.jobs.io;

import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.DeadLetter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.io.IOException;

/**
 * Parses Kafka records ({@link RecordFormat}: binary or JSON) into one of CKC's record types; a record that does not
 * parse (or fails the given check) goes to the dead-letter side output with the reason, and is counted.
 */
public abstract class RecordParser<T> extends ProcessFunction<RawRecord, T> {

    public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("dead-letters") {
    };

    private final String source;
    private transient RecordFormat format;
    private transient Counter deadLetters;

    protected RecordParser(String source) {
        this.source = source;
    }

    @Override
    public void open(OpenContext openContext) {
        format = new RecordFormat();
        deadLetters = getRuntimeContext().getMetricGroup().counter("deadLetters");
    }

    /** Parses one record; throws {@link IOException} with the reason when it is not acceptable. */
    protected abstract T parse(RecordFormat format, RawRecord record) throws IOException;

    /**
     * Parses one record and hands on what it holds: the one value {@link #parse} makes, for most records. A parser of a
     * topic whose records carry several (a gateway's batch of receipts) overrides it, parsing all of them before it
     * hands on any: a record is all values or one dead letter.
     */
    protected void parseAndEmit(RecordFormat format, RawRecord record, Context ctx, Collector<T> out) throws IOException {
        emit(parse(format, record), ctx, out);
    }

    /** Hands a parsed record on; a parser that splits its output into side outputs overrides it. */
    protected void emit(T parsed, Context ctx, Collector<T> out) {
        out.collect(parsed);
    }

    @Override
    public void processElement(RawRecord record, Context ctx, Collector<T> out) {
        try {
            parseAndEmit(format, record, ctx, out);
        } catch (IOException | RuntimeException e) {
            deadLetters.inc();
            ctx.output(DEAD_LETTERS, new DeadLetter(source, record.topic(), record.partition(), record.offset(),
                    String.valueOf(e.getMessage()), record.key(), record.value(), System.currentTimeMillis()));
        }
    }

    protected static <R> R read(RecordFormat format, RawRecord record, Class<R> type) throws IOException {
        return format.read(record.value(), type);
    }

    /** A node's message for an application: it needs its id, its node and a payload. */
    protected static AppMessage checked(AppMessage message) throws IOException {
        require(message.messageId() != null && message.mnId() != null && message.payload() != null,
                "app message needs messageId, mnId and payload");
        return message;
    }

    protected static void require(boolean condition, String reason) throws IOException {
        if (!condition) {
            throw new IOException(reason);
        }
    }
}
