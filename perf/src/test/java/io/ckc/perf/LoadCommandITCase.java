package io.ckc.perf;

import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.jobs.echo.EchoJob;
import io.ckc.protocol.kafka.RecordFormat;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.Unicast;
import io.ckc.testing.EmbeddedKafkaExtension;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./ckc load} on real parts (an in-JVM broker, the delivery and echo jobs on a MiniCluster, one gateway):
 * against the echo, nodes and MQTT devices get every answer right and once; against an application that answers
 * some requests wrongly and some twice on purpose, the load counts exactly those and fails.
 */
class LoadCommandITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2)
                    .build());

    @Test
    void theLoadChecksEveryAnswerAndCountsTheWrongOnesAndTheRepeats() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo", "shout"), List.of("gw-1"));
        ParameterTool params = ParameterTool.fromArgs(new String[] {"--bootstrap", KAFKA.bootstrapServers(),
                "--topic-prefix", topics.prefix(), "--app-topic-prefix", topics.appPrefix(), "--parallelism", "1"});
        JobClient delivery = QuickScenarioITCase.submit(DeliveryJob.NAME, DeliveryJob.fromArgs(params)::build);
        JobClient echo = QuickScenarioITCase.submit(EchoJob.NAME, EchoJob.fromArgs(params)::build);
        GatewayConfig config = GatewayConfig.forTest("gw-1", KAFKA.bootstrapServers(), topics).toBuilder()
                .mqttPort(0).build();
        AtomicInteger wrongOnPurpose = new AtomicInteger();
        AtomicInteger twiceOnPurpose = new AtomicInteger();
        try (Gateway gateway = Gateway.start(config);
             KafkaProducer<String, byte[]> producer = KAFKA.producer();
             AutoCloseable badApp = KAFKA.follow(topics.app("shout"),
                     record -> answerBadly(record, producer, topics, wrongOnPurpose, twiceOnPurpose))) {
            String udp = "127.0.0.1:" + gateway.udpAddress().getPort();
            String mqtt = "127.0.0.1:" + gateway.mqttAddress().orElseThrow().getPort();

            Run echoed = load(udp, mqtt, "--channel", "echo", "--expect", "unchanged", "--protocol", "mixed");
            assertThat(echoed.exit()).as(echoed.output()).isZero();
            assertThat(echoed.output()).containsPattern("RESULT sent=(\\d+) answered=\\1 wrong=0 duplicates=0 "
                    + "unanswered=0 rtt_p50_ms=[0-9.]+ rtt_p99_ms=[0-9.]+ protocol=mixed expect=unchanged");

            Run checked = load(udp, mqtt, "--channel", "shout", "--expect", "upper", "--protocol", "udp");
            assertThat(checked.exit()).as(checked.output()).isOne();
            long sent = Long.parseLong(checked.output().replaceAll("(?s).*RESULT sent=(\\d+) .*", "$1"));
            assertThat(wrongOnPurpose.get()).as("the bad application answered some wrongly").isPositive();
            assertThat(twiceOnPurpose.get()).as("and some twice").isPositive();
            assertThat(checked.output()).contains("RESULT sent=" + sent + " answered=" + (sent - wrongOnPurpose.get())
                    + " wrong=" + wrongOnPurpose.get() + " duplicates=" + twiceOnPurpose.get() + " unanswered="
                    + wrongOnPurpose.get() + " ").contains("wrong: node ").contains("got 'WRONG'");
        } finally {
            delivery.cancel().get(30, TimeUnit.SECONDS);
            echo.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    private record Run(int exit, String output) {
    }

    private static Run load(String udp, String mqtt, String... options) throws Exception {
        LoadCommand load = new LoadCommand();
        List<String> args = new java.util.ArrayList<>(List.of("--gateways", udp, "--mqtt-gateways", mqtt,
                "--nodes", "20", "--rate", "100", "--seconds", "2", "--drain-seconds", "5", "--io-threads", "1"));
        args.addAll(List.of(options));
        new CommandLine(load).parseArgs(args.toArray(String[]::new));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        load.out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        int exit = load.call();
        String output = printed.toString(StandardCharsets.UTF_8);
        System.out.print("LoadCommandITCase: " + output);
        return new Run(exit, output);
    }

    /**
     * An application that answers in upper case, but every tenth request with "WRONG" and every seventh (of the
     * others) twice, the second time under a new id, so no SDK drops it.
     */
    private static void answerBadly(ConsumerRecord<String, byte[]> record, KafkaProducer<String, byte[]> producer,
                                    Topics topics, AtomicInteger wrong, AtomicInteger twice) {
        RecordFormat format = new RecordFormat();
        AppMessage request;
        try {
            request = format.read(record.value(), AppMessage.class);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        String text = new String(request.payload(), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
        boolean answerWrongly = record.offset() % 10 == 9;
        byte[] answer = (answerWrongly ? "WRONG" : text).getBytes(StandardCharsets.UTF_8);
        int copies = !answerWrongly && record.offset() % 7 == 6 ? 2 : 1;
        for (int i = 0; i < copies; i++) {
            // the first under the id the guide derives, so a request the gateway wrote twice is answered harmlessly;
            // the second copy under a new one
            String id = i == 0 ? request.answer("bad", answer).messageId() : UUID.randomUUID().toString();
            Unicast unicast = new Unicast(id, "bad", request.mnId(), answer, null,
                    System.currentTimeMillis(), false, null, null, null);
            producer.send(new ProducerRecord<>(topics.toMn(), request.mnId(), format.write(unicast)));
        }
        if (answerWrongly) {
            wrong.incrementAndGet();
        } else if (copies == 2) {
            twice.incrementAndGet();
        }
    }
}
