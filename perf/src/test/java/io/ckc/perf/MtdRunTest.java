package io.ckc.perf;

import io.ckc.protocol.records.Receipt;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class MtdRunTest {

    private static final long TTL_MS = 15_000;

    @Test
    void aMessageReceivedPastItsTtlIsAnExpiredDeliveryAndOneReceivedInTimeThenReportedExpiredIsAWrongReceipt() {
        MtdRun run = new MtdRun(MtdCommand.Configuration.named("mtd_1"), 1, 3, 0, TTL_MS, 500, false);
        run.sent("in-time", 0, 0);
        run.sent("late", 0, 1);
        run.sent("answered", 0, 2);
        long now = System.nanoTime();
        // received in time; then its acknowledgement was lost, and a later session reported it expired
        assertThat(run.received(new EchoPayload(0, 0, now).encode())).isTrue();
        run.onReceipt(new Receipt("in-time", "app", "n", Receipt.Outcome.EXPIRED, "gw-2", "may have arrived", 0));
        // received 20 s after it was sent, with a TTL of 15 s
        assertThat(run.received(new EchoPayload(0, 1, now - TimeUnit.SECONDS.toNanos(20)).encode())).isTrue();
        assertThat(run.received(new EchoPayload(0, 2, now).encode())).isTrue();
        assertThat(run.received(new EchoPayload(0, 2, now).encode())).as("a repeat is not answered").isFalse();

        MtdRun.Result result = run.result();
        assertThat(result.expiredDelivered()).isOne();
        assertThat(result.arrivedLate()).isOne();
        assertThat(result.receivedAndExpired()).isOne();
        assertThat(result.expired()).isOne();
        assertThat(result.duplicates()).isOne();
        assertThat(result.passes()).isFalse();
    }

    @Test
    void aMessageTheApplicationCouldNotWriteToKafkaIsNotLostByCkc() {
        MtdRun run = new MtdRun(MtdCommand.Configuration.named("mtd_1"), 1, 2, 0, TTL_MS, 500, false);
        run.sent("written", 0, 0);
        run.sent("refused", 0, 1);
        run.notTaken("refused");
        assertThat(run.allAccountedFor()).isFalse(); // "written" is still on its way
        MtdRun.Result result = run.result();
        assertThat(result.appSendFailed()).isOne();
        assertThat(result.unaccounted()).as("only the written one is CKC's").isOne();
    }
}
