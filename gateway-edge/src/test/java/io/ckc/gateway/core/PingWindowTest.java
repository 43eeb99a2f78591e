package io.ckc.gateway.core;

import io.ckc.protocol.records.ConnectionReport;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class PingWindowTest {

    private static final long SENT_MICROS = 1_000_000;
    private static final long START_NANOS = 50_000;

    private final UUID a = UUID.randomUUID();
    private final UUID b = UUID.randomUUID();
    private final UUID late = UUID.randomUUID();
    private final UUID joined = UUID.randomUUID();

    @Test
    void pongsInsideTheWindowAreKeptLateAndUnaskedOnesAreNot() {
        PingWindow window = new PingWindow(SENT_MICROS, START_NANOS, 1_000);
        window.pinged(a, START_NANOS);
        window.pinged(b, START_NANOS);
        window.pinged(late, START_NANOS);

        assertThat(window.onPong(a, SENT_MICROS, START_NANOS + millis(12))).isTrue();
        assertThat(window.onPong(b, SENT_MICROS - 1, START_NANOS + millis(20))).as("another window's ping").isFalse();
        assertThat(window.onPong(late, SENT_MICROS, START_NANOS + millis(1_001))).as("after the window").isFalse();
        assertThat(window.onPong(joined, SENT_MICROS, START_NANOS + millis(5))).as("never pinged").isFalse();

        List<ConnectionReport> reports = window.close("gw-1", List.of(a, b, late, joined), 10);
        assertThat(reports).hasSize(1);
        ConnectionReport report = reports.get(0);
        assertThat(report.pinged()).isEqualTo(3);
        assertThat(report.connected()).hasSize(4);
        assertThat(report.pongArrivalMicros()).containsOnlyKeys(a.toString());
        assertThat(report.pongArrivalMicros().get(a.toString())).isEqualTo(SENT_MICROS + 12_000);
        assertThat(window.onPong(b, SENT_MICROS, START_NANOS + millis(30))).as("after the close").isFalse();
    }

    @Test
    void aLargeWindowIsReportedInPartsThatEachCountTheirOwnNodes() {
        PingWindow window = new PingWindow(SENT_MICROS, START_NANOS, 1_000);
        window.pinged(a, START_NANOS);
        window.pinged(b, START_NANOS);
        window.pinged(late, START_NANOS);
        window.onPong(late, SENT_MICROS, START_NANOS + millis(3));

        List<ConnectionReport> reports = window.close("gw-1", List.of(a, b, late, joined), 3);
        assertThat(reports).extracting(ConnectionReport::part).containsExactly(0, 1);
        assertThat(reports).allMatch(r -> r.parts() == 2);
        assertThat(reports.get(0).connected()).hasSize(3);
        assertThat(reports.get(0).pinged()).isEqualTo(3);
        assertThat(reports.get(0).pongArrivalMicros()).containsOnlyKeys(late.toString());
        assertThat(reports.get(1).connected()).containsExactly(joined.toString());
        assertThat(reports.get(1).pinged()).isZero();
    }

    @Test
    void aWindowThatDoesNotListTheNodesCountsThemInOnePart() {
        PingWindow window = new PingWindow(SENT_MICROS, START_NANOS, 1_000);
        window.pinged(a, START_NANOS);
        window.pinged(b, START_NANOS);
        window.onPong(a, SENT_MICROS, START_NANOS + millis(4));
        PingWindow.Part other = new PingWindow(SENT_MICROS, START_NANOS, 1_000).closePart(List.of(), 30_000);

        List<ConnectionReport> reports = PingWindow.report("gw-1", SENT_MICROS, 1_000,
                List.of(window.closePart(List.of(), 25_000), other), 3, false);
        assertThat(reports).singleElement().satisfies(r -> {
            assertThat(r.listed()).isFalse();
            assertThat(r.connected()).isEmpty();
            assertThat(r.connectedCount()).isEqualTo(55_000);
            assertThat(r.parts()).isEqualTo(1);
            assertThat(r.pinged()).isEqualTo(2);
            assertThat(r.pongArrivalMicros()).containsOnlyKeys(a.toString());
        });
    }

    @Test
    void aLargeGatewayListsItsNodesEveryFewWindowsASmallOneInEach() {
        int per = PingWindow.NODES_LISTED_PER_WINDOW;
        assertThat(PingWindow.listsNodes(0, 0)).isTrue();
        assertThat(PingWindow.listsNodes(0, per)).isTrue();
        assertThat(PingWindow.listsNodes(0, per + 1)).isFalse();
        assertThat(PingWindow.listsNodes(1, per + 1)).isTrue();
        assertThat(PingWindow.listsNodes(48, 50 * per)).isFalse();
        assertThat(PingWindow.listsNodes(49, 50 * per)).as("a million nodes: every 50th window").isTrue();
    }

    @Test
    void aNodePingedLateInAPacedWindowReportsItsOwnRoundTrip() {
        PingWindow window = new PingWindow(SENT_MICROS, START_NANOS, 1_000);
        window.pinged(a, START_NANOS + millis(300));

        assertThat(window.onPong(a, SENT_MICROS, START_NANOS + millis(312))).isTrue();

        ConnectionReport report = window.close("gw-1", List.of(a), 10).get(0);
        assertThat(report.pongArrivalMicros().get(a.toString())).as("arrival - sentAt is the 12 ms round trip")
                .isEqualTo(SENT_MICROS + 12_000);
    }

    @Test
    void aGatewayWithoutNodesStillReportsOneEmptyPart() {
        List<ConnectionReport> reports = new PingWindow(SENT_MICROS, START_NANOS, 1_000).close("gw-1", List.of(), 100);
        assertThat(reports).singleElement().satisfies(r -> {
            assertThat(r.parts()).isEqualTo(1);
            assertThat(r.connected()).isEmpty();
            assertThat(r.pinged()).isZero();
        });
    }

    private static long millis(long ms) {
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }
}
