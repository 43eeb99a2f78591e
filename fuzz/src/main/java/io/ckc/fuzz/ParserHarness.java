package io.ckc.fuzz;

import io.ckc.jobs.io.RecordParser;
import io.ckc.jobs.records.RawRecord;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.records.DeadLetter;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.apache.flink.util.OutputTag;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * One of the jobs' record parsers as it runs in its job (opened, with its dead-letter side output), fed one Kafka
 * record at a time. Every record must come out exactly once: parsed, on one of the parser's side outputs, or as a
 * dead letter with its reason; anything else (an exception, nothing, two) is a finding. A batch (a gateway's receipts)
 * comes out as each of its values, or as one dead letter.
 *
 * <p>A fuzz input is one record: its first byte picks the topic (its low seven bits, modulo the topics the parser
 * reads) and, with its high bit set, makes the record a tombstone whose key is the rest; otherwise the rest is
 * the value.
 */
public final class ParserHarness<T> {

    private static final int TOMBSTONE = 0x80;

    private final OneInputStreamOperatorTestHarness<RawRecord, T> harness;
    private final List<String> topics;
    private final List<OutputTag<?>> sideOutputs = new ArrayList<>();

    public ParserHarness(RecordParser<T> parser, List<String> topics, OutputTag<?>... sideOutputs) {
        this.topics = List.copyOf(topics);
        this.sideOutputs.add(RecordParser.DEAD_LETTERS);
        this.sideOutputs.addAll(List.of(sideOutputs));
        try {
            this.harness = ProcessFunctionTestHarnesses.forProcessFunction(parser);
        } catch (Exception e) {
            throw new IllegalStateException("cannot open the parser " + parser.getClass().getSimpleName(), e);
        }
    }

    /** What the parser made of one fuzz input: a parsed record, a side output's record or a dead letter. */
    public Object parse(byte[] data) {
        List<Object> out = parse(data, Set.of());
        return out.isEmpty() ? null : out.get(0);
    }

    /**
     * What the parser made of one fuzz input (empty for an empty input). A record of a topic in {@code batchTopics}
     * (a gateway's batch of receipts) may come out as several values, all parsed: all of a batch, or one dead letter.
     */
    public List<Object> parse(byte[] data, Set<String> batchTopics) {
        if (data.length == 0) {
            return List.of();
        }
        String topic = topics.get((data[0] & 0x7f) % topics.size());
        byte[] rest = new byte[data.length - 1];
        System.arraycopy(data, 1, rest, 0, rest.length);
        RawRecord record = (data[0] & TOMBSTONE) != 0
                ? new RawRecord(topic, 0, 0, rest, null)
                : new RawRecord(topic, 0, 0, null, rest);
        try {
            harness.processElement(record, 0L);
        } catch (Exception e) {
            throw new FuzzFinding("the parser threw on a record of " + topic + " instead of dead-lettering it", e);
        }
        List<Object> out = new ArrayList<>(drain(harness.getOutput()));
        for (OutputTag<?> tag : sideOutputs) {
            out.addAll(drain(harness.getSideOutput(tag)));
        }
        boolean many = out.size() > 1;
        if (out.isEmpty() || many && (!batchTopics.contains(topic) || out.stream().anyMatch(o -> o instanceof DeadLetter))) {
            throw new FuzzFinding("a record of " + topic + " came out " + out.size() + " times: " + out);
        }
        return out;
    }

    private static List<Object> drain(Collection<?> queue) {
        List<Object> values = new ArrayList<>();
        if (queue == null) {
            return values;
        }
        for (Object element : queue) {
            if (element instanceof StreamRecord<?> record) {
                values.add(record.getValue());
            }
        }
        queue.clear();
        return values;
    }

    /** A seed: the record {@code value} as CKC writes it (binary or JSON) on the {@code topicIndex}-th topic. */
    public static byte[] seed(int topicIndex, Object value) {
        byte[] record = new RecordFormat().write(value);
        byte[] seed = new byte[record.length + 1];
        seed[0] = (byte) topicIndex;
        System.arraycopy(record, 0, seed, 1, record.length);
        return seed;
    }

    /** A seed: a tombstone with this key on the {@code topicIndex}-th topic. */
    public static byte[] tombstone(int topicIndex, String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        byte[] seed = new byte[bytes.length + 1];
        seed[0] = (byte) (topicIndex | TOMBSTONE);
        System.arraycopy(bytes, 0, seed, 1, bytes.length);
        return seed;
    }

    /** Fails the input when an accepted record has no key to be keyed by: its job would fail on it. */
    public static void requireKey(Object key, Object accepted) {
        if (key == null) {
            throw new FuzzFinding("accepted without the key its job is keyed by: " + accepted);
        }
    }
}
