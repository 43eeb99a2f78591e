package io.ckc.jobs;

import io.ckc.client.ClientConfig;
import io.ckc.client.ClientTransport;
import io.ckc.client.MobileNode;
import io.ckc.client.NodeListener;
import io.ckc.client.ReceivedMessage;
import io.ckc.gateway.Gateway;
import io.ckc.gateway.GatewayConfig;
import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.jobs.echo.EchoJob;
import io.ckc.jobs.groups.GroupDefinerJob;
import io.ckc.protocol.kafka.CoreMessenger;
import io.ckc.protocol.kafka.Topics;
import io.ckc.protocol.netty.DatagramTransport;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.Unicast;
import io.ckc.testing.Await;
import io.ckc.testing.EmbeddedKafkaExtension;
import io.ckc.udfs.groups.GridCellSelection;
import io.netty.channel.EventLoopGroup;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ParameterTool;
import org.eclipse.paho.mqttv5.client.IMqttMessageListener;
import org.eclipse.paho.mqttv5.client.MqttClient;
import org.eclipse.paho.mqttv5.client.MqttConnectionOptions;
import org.eclipse.paho.mqttv5.client.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.eclipse.paho.mqttv5.common.MqttSubscription;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stock MQTT 5 client (Eclipse Paho) beside a reliable-UDP node on one gateway, with the delivery job, a group
 * definer and the echo application on a MiniCluster: the device's context report puts it in a group with the UDP node
 * and both get the group's messages; it reads groupcasts and broadcasts on their own topics, gets the echo's answer on
 * the Response Topic it named with its Correlation Data, and, away past some TTLs, gets exactly the live messages from
 * the MTD, once, in order, each with the time it has left as its Message Expiry Interval.
 */
class MqttDevicesITCase {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK = RunningJobs.miniCluster();

    private static final Context CELL_A = new Context(-22.905, -43.175, 0.9, Map.of());
    private static final String DEVICE = "tracker-1";
    private static final String SENDER = "mqtt-it-app";

    /** What the device read: topic, payload, properties. */
    private record Arrival(String topic, String payload, MqttProperties properties) {
    }

    private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
    private final List<String> udpArrivals = new CopyOnWriteArrayList<>();

    @Test
    void anMqttDeviceGetsGroupcastsBroadcastsAnswersAndItsMtdMessagesAsAUdpNodeDoes() throws Exception {
        Topics topics = KAFKA.freshTopics();
        KAFKA.createTopics(topics, List.of("echo", "status"), List.of("gw-1"));
        String[] common = {"--bootstrap", KAFKA.bootstrapServers(), "--topic-prefix", topics.prefix(),
                "--app-topic-prefix", topics.appPrefix(), "--parallelism", "1", "--mtd-default-ttl-ms", "120000"};
        GroupDefinerJob grid = GroupDefinerJob.fromArgs(ParameterTool.fromArgs(
                concat(common, "--selection", "grid-cell")));
        List<GroupAdvertisement> advertisements = new CopyOnWriteArrayList<>();
        List<Receipt> receipts = new CopyOnWriteArrayList<>();
        EventLoopGroup loops = DatagramTransport.current().newGroup(1);
        try (RunningJobs jobs = new RunningJobs()
                .start(DeliveryJob.NAME, DeliveryJob.fromArgs(ParameterTool.fromArgs(common))::build)
                .start(EchoJob.NAME, EchoJob.fromArgs(ParameterTool.fromArgs(common))::build)
                .start(grid.name(), grid::build);
             AutoCloseable followGroups = KAFKA.followJson(topics.groups(), GroupAdvertisement.class,
                     advertisements::add);
             AutoCloseable followReceipts = KAFKA.followJson(topics.receipts(), Receipt.class, receipts::add);
             CoreMessenger app = CoreMessenger.connect(KAFKA.bootstrapServers(), topics, SENDER);
             Gateway gateway = Gateway.start(GatewayConfig.forTest("gw-1", KAFKA.bootstrapServers(), topics)
                     .toBuilder().mqttPort(0).build());
             ClientTransport transport = ClientTransport.open(loops)) {
            MobileNode udpNode = new MobileNode(UUID.randomUUID(), transport, gateway.udpAddress(), new NodeListener() {
                @Override
                public void newMessageReceived(MobileNode node, ReceivedMessage message) {
                    udpArrivals.add(message.messageId().toString());
                }
            }, ClientConfig.DEFAULT);
            udpNode.connect();
            String uri = "tcp://127.0.0.1:" + gateway.mqttAddress().orElseThrow().getPort();
            MqttClient device = connect(uri);
            Await.until("the UDP node connected", 60, udpNode::isConnected);

            // Both report a place in cell A: the UDP node with a message, the device on its context topic.
            udpNode.send("status", new byte[] {1}, CELL_A);
            device.publish("ckc/" + DEVICE + "/context", ("{\"latitude\":" + CELL_A.latitude() + ",\"longitude\":"
                    + CELL_A.longitude() + ",\"battery\":0.9,\"attributes\":{}}").getBytes(StandardCharsets.UTF_8),
                    1, false);
            String deviceNode = UUID.nameUUIDFromBytes(("ckc-mqtt:" + DEVICE).getBytes(StandardCharsets.UTF_8))
                    .toString();
            String cellA = "grid-cell/" + new GridCellSelection().groupsOf("any", CELL_A.latitude(),
                    CELL_A.longitude(), null, Map.of()).iterator().next();
            Await.until("both advertised in " + cellA, 90, () -> advertisements.stream()
                    .filter(a -> a.groups() != null && a.groups().contains(cellA.substring("grid-cell/".length())))
                    .map(GroupAdvertisement::mnId).distinct().count() >= 2);

            // A groupcast reaches both, the device on the group's topic. Probes go out until the group is indexed.
            List<String> probes = new CopyOnWriteArrayList<>();
            Await.until(cellA + " indexed with both members", 60, () -> {
                if (probes.stream().anyMatch(p -> udpArrivals.contains(p) && arrivedOn("ckc/groups/" + cellA, p))) {
                    return true;
                }
                probes.add(app.groupcast(cellA, new byte[] {0}, Duration.ofSeconds(30)));
                return false;
            });
            String toGroup = app.groupcast(cellA, "to cell A".getBytes(StandardCharsets.UTF_8), null);
            String broadcast = app.broadcast("to everyone".getBytes(StandardCharsets.UTF_8));
            Await.until("the groupcast and the broadcast at both", 30, () -> udpArrivals.contains(toGroup)
                    && udpArrivals.contains(broadcast) && arrivedOn("ckc/groups/" + cellA, toGroup)
                    && arrivedOn("ckc/broadcast", broadcast));

            // The echo answers on the Response Topic the device named, with its Correlation Data.
            MqttProperties request = new MqttProperties();
            request.setResponseTopic("ckc/" + DEVICE + "/answers");
            request.setCorrelationData(new byte[] {4, 2});
            MqttMessage question = new MqttMessage("ping?".getBytes(StandardCharsets.UTF_8), 1, false, request);
            device.publish("app/echo", question);
            Await.until("the echo's answer", 30, () -> arrivals.stream()
                    .anyMatch(a -> a.topic.equals("ckc/" + DEVICE + "/answers")));
            Arrival answer = arrivals.stream().filter(a -> a.topic.equals("ckc/" + DEVICE + "/answers")).findFirst()
                    .orElseThrow();
            assertThat(answer.payload).isEqualTo("ping?");
            assertThat(answer.properties.getCorrelationData()).containsExactly(4, 2);

            // Away past a short TTL: the MTD keeps the live messages and lets the short one expire.
            device.disconnect();
            device.close();
            long now = System.currentTimeMillis();
            app.send(new Unicast("live-1", SENDER, deviceNode, "live 1".getBytes(), 120_000L, now, true));
            app.send(new Unicast("short", SENDER, deviceNode, "short".getBytes(), 1_500L, now, true));
            app.send(new Unicast("live-2", SENDER, deviceNode, "live 2".getBytes(), 120_000L, now, true));
            Await.until("the short one expired", 60, () -> receipts.stream()
                    .anyMatch(r -> r.messageId().equals("short") && r.outcome() == Receipt.Outcome.EXPIRED));
            arrivals.clear();
            MqttClient back = connect(uri);
            app.send(new Unicast("marker", SENDER, deviceNode, "marker".getBytes(), 120_000L,
                    System.currentTimeMillis(), false));
            Await.until("the marker, after what the MTD kept", 60, () -> inboxPayloads().contains("marker"));
            // in order per node: a repeat of a live message would have come before the marker
            assertThat(inboxPayloads()).containsExactly("live 1", "live 2", "marker");
            Arrival first = arrivals.stream().filter(a -> a.payload.equals("live 1")).findFirst().orElseThrow();
            long left = first.properties.getMessageExpiryInterval();
            long elapsedS = (System.currentTimeMillis() - now) / 1000;
            assertThat(left).as("seconds left of 120 after %d s", elapsedS).isBetween(120 - elapsedS - 1, 120L);
            Await.until("DELIVERED receipts of both live messages", 30, () -> receipts.stream()
                    .filter(r -> r.outcome() == Receipt.Outcome.DELIVERED).map(Receipt::messageId).toList()
                    .containsAll(List.of("live-1", "live-2")));
            assertThat(receipts).filteredOn(r -> r.outcome() == Receipt.Outcome.DELIVERED)
                    .extracting(Receipt::messageId).doesNotContain("short");
            back.disconnect();
            back.close();
            udpNode.close();
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private MqttClient connect(String uri) throws Exception {
        MqttClient client = new MqttClient(uri, DEVICE, new MemoryPersistence());
        MqttConnectionOptions options = new MqttConnectionOptions();
        options.setCleanStart(true);
        options.setKeepAliveInterval(30);
        client.connect(options);
        IMqttMessageListener record = (topic, message) -> arrivals.add(new Arrival(topic,
                new String(message.getPayload(), StandardCharsets.UTF_8), message.getProperties()));
        client.subscribe(new MqttSubscription[] {new MqttSubscription("ckc/" + DEVICE + "/#", 1),
                        new MqttSubscription("ckc/groups/#", 1), new MqttSubscription("ckc/broadcast", 1)},
                new IMqttMessageListener[] {record, record, record});
        return client;
    }

    private boolean arrivedOn(String topic, String messageId) {
        return arrivals.stream().anyMatch(a -> a.topic.equals(topic) && messageId.equals(userProperty(a, "message-id")));
    }

    private List<String> inboxPayloads() {
        return arrivals.stream().filter(a -> a.topic.equals("ckc/" + DEVICE + "/inbox")).map(Arrival::payload)
                .toList();
    }

    private static String userProperty(Arrival arrival, String key) {
        return arrival.properties.getUserProperties().stream().filter(p -> p.getKey().equals(key))
                .map(p -> p.getValue()).findFirst().orElse(null);
    }

    private static String[] concat(String[] common, String... more) {
        String[] all = java.util.Arrays.copyOf(common, common.length + more.length);
        System.arraycopy(more, 0, all, common.length, more.length);
        return all;
    }
}
