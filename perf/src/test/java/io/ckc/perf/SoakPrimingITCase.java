package io.ckc.perf;

import com.yammer.metrics.core.Histogram;
import com.yammer.metrics.core.Metric;
import com.yammer.metrics.core.MetricName;
import io.ckc.protocol.kafka.TopicSetup;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.server.metrics.KafkaYammerMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A soak's lag reads, once primed, grow none of the broker's request histograms: each one they add to is full
 * ({@link SoakCommand#KAFKA_REQUEST_HISTOGRAM_SAMPLES}). Read on the in-JVM broker's own Yammer registry.
 */
class SoakPrimingITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    /** The request types a lag read makes, as the broker tags its request metrics. */
    private static final List<String> LAG_READ_REQUESTS = List.of("ListGroups", "FindCoordinator", "OffsetFetch",
            "ListOffsets");

    /**
     * The requests the in-JVM KRaft node makes of itself, on its own clock (a heartbeat each second, the metadata log's
     * fetches): they fill their histograms whether a lag read runs or not, so they say nothing about the priming.
     */
    private static final List<String> BROKER_OWN_REQUESTS = List.of("BrokerHeartbeat", "BrokerRegistration",
            "ControllerRegistration", "Fetch", "FetchSnapshot", "Vote", "BeginQuorumEpoch", "EndQuorumEpoch",
            "DescribeQuorum", "AllocateProducerIds");

    @Test
    void afterPrimingALagReadAddsOnlyToFullRequestHistograms() throws Exception {
        try (Admin admin = TopicSetup.admin(KAFKA.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic("soak-primed", 2, (short) 1))).all().get();
            admin.alterConsumerGroupOffsets("soak-primed-group",
                    Map.of(new TopicPartition("soak-primed", 0), new OffsetAndMetadata(0))).all().get();
            SoakCommand soak = new SoakCommand();
            soak.out = new PrintStream(OutputStream.nullOutputStream());

            soak.primeKafka(admin);
            // The broker records a request in its histograms once the response is sent, so an admin call can return
            // before its request is counted: wait for the counts rather than read them at once.
            Await.until("the broker counted " + SoakCommand.KAFKA_REQUEST_HISTOGRAM_SAMPLES
                    + " of each lag-read request", 30, () -> lagReadCounts().values().stream()
                            .allMatch(count -> count >= SoakCommand.KAFKA_REQUEST_HISTOGRAM_SAMPLES));
            Map<String, Long> before = requestHistogramCounts();
            assertThat(soak.lags(admin)).containsEntry("soak-primed-group", 0.0);
            Await.until("the broker counted the lag read's requests", 30, () -> lagReadCounts().entrySet().stream()
                    .allMatch(count -> count.getValue() > before.getOrDefault(count.getKey(), 0L)));
            Map<String, Long> after = requestHistogramCounts();

            Map<String, Long> grewWhileFilling = new TreeMap<>();
            after.forEach((name, count) -> {
                if (isOneOf(name, BROKER_OWN_REQUESTS)) {
                    return;
                }
                long was = before.getOrDefault(name, 0L);
                if (count > was && was < SoakCommand.KAFKA_REQUEST_HISTOGRAM_SAMPLES) {
                    grewWhileFilling.put(name, was);
                }
            });
            assertThat(grewWhileFilling).as("histograms a primed lag read still fills (their counts before it)")
                    .isEmpty();
        }
    }

    /** The counts of the histograms of the request types a lag read makes, each of which it must have made. */
    private static Map<String, Long> lagReadCounts() {
        Map<String, Long> counts = new TreeMap<>(requestHistogramCounts());
        counts.keySet().removeIf(name -> !isOneOf(name, LAG_READ_REQUESTS));
        for (String request : LAG_READ_REQUESTS) {
            counts.putIfAbsent("kafka.network:type=RequestMetrics,name=TotalTimeMs,request=" + request, 0L);
        }
        return counts;
    }

    /** Whether the histogram named {@code name} is of one of {@code requests}. */
    private static boolean isOneOf(String name, List<String> requests) {
        return requests.stream().anyMatch(request -> name.endsWith(",request=" + request));
    }

    /** Each request histogram of the broker by its JMX name, with how many samples it has been given. */
    private static Map<String, Long> requestHistogramCounts() {
        Map<String, Long> counts = new TreeMap<>();
        for (Map.Entry<MetricName, Metric> metric : KafkaYammerMetrics.defaultRegistry().allMetrics().entrySet()) {
            if (metric.getValue() instanceof Histogram histogram
                    && metric.getKey().getMBeanName().startsWith("kafka.network:type=RequestMetrics,")) {
                counts.put(metric.getKey().getMBeanName(), histogram.count());
            }
        }
        return counts;
    }
}
