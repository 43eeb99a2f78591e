package io.ckc.fuzz;

import io.ckc.protocol.records.AppMessage;
import io.ckc.protocol.records.ConnectionReport;
import io.ckc.protocol.records.Context;
import io.ckc.protocol.records.ContextReport;
import io.ckc.protocol.records.Endpoint;
import io.ckc.protocol.records.GroupAdvertisement;
import io.ckc.protocol.records.Groupcast;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;
import io.ckc.protocol.records.MnEvent;
import io.ckc.protocol.records.PoaControl;
import io.ckc.protocol.records.Receipt;
import io.ckc.protocol.records.ReceiptBatch;
import io.ckc.protocol.records.Unicast;
import io.ckc.protocol.records.UnsentMessage;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** One well-formed record of every type the jobs read from Kafka: the seeds of the record targets. */
public final class SampleRecords {

    public static final String NODE = "00000000-0000-1234-0000-000000005678";
    public static final String GATEWAY = "gw-1";
    public static final long NOW = 1_800_000_000_000L;

    private SampleRecords() {
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    public static Context context() {
        return new Context(-22.9, -43.2, 0.8, Map.of("floor", "3"));
    }

    public static Unicast unicast() {
        return new Unicast("m-1", "echo", NODE, bytes("hello"), 60_000L, NOW, true, null, "app/answers", bytes("c-1"));
    }

    public static MnEvent connected() {
        return MnEvent.connected(NODE, GATEWAY, 3, NOW);
    }

    public static UnsentMessage unsent() {
        return new UnsentMessage(unicast(), GATEWAY, 3, UnsentMessage.Reason.CONNECTION_BROKEN, NOW);
    }

    /** A gateway's receipts on ckc.delivered: one DELIVERED, one DROPPED. */
    public static ReceiptBatch delivered() {
        return new ReceiptBatch(GATEWAY, List.of(Receipt.of(unicast(), Receipt.Outcome.DELIVERED, GATEWAY, null, NOW),
                Receipt.of(unicast(), Receipt.Outcome.DROPPED, GATEWAY, "larger than the node takes", NOW)));
    }

    public static GroupAdvertisement advertisement() {
        return new GroupAdvertisement("grid-cell", NODE, List.of("3-4", "3-5"), NOW, NOW + 60_000);
    }

    public static Groupcast groupcast() {
        return new Groupcast("g-1", NODE, "grid-cell/3-4", bytes("to all"), 60_000L, NOW, false);
    }

    public static HelloPoA hello() {
        return new HelloPoA(GATEWAY, List.of(new Endpoint(Endpoint.UDP, "127.0.0.1", 5500)), NOW);
    }

    public static LoadReport load() {
        return new LoadReport(GATEWAY, NOW, 5_000, 2, 0.3, 0.5, 0.2, 24L << 30, 0.6, 2L << 30, 0.7, 1_000);
    }

    public static ConnectionReport connections() {
        return new ConnectionReport(GATEWAY, NOW * 1_000, 5_000, 0, 1, 2,
                Map.of(NODE, NOW * 1_000 + 1_500), List.of(NODE));
    }

    public static PoaControl drain() {
        return new PoaControl(GATEWAY, true, NOW);
    }

    public static AppMessage appMessage() {
        return new AppMessage("m-2", NODE, GATEWAY, "echo", bytes("hello"), context(), NOW, 60_000L,
                "app/answers", bytes("c-2"));
    }

    public static ContextReport contextReport() {
        return new ContextReport(NODE, GATEWAY, NOW, context());
    }
}
