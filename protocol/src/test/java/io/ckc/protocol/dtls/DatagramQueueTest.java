package io.ckc.protocol.dtls;

import org.junit.jupiter.api.Test;

import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatagramQueueTest {

    private static final InetSocketAddress A = new InetSocketAddress("10.0.0.1", 1);
    private static final InetSocketAddress B = new InetSocketAddress("10.0.0.2", 2);

    @Test
    void onceUpItNeverWaitsAndAsksForBuffersNoLargerThanItsDatagrams() throws Exception {
        List<byte[]> written = new ArrayList<>();
        DatagramQueue queue = new DatagramQueue(written::add);
        assertThat(queue.getReceiveLimit()).as("a handshake may get any record").isEqualTo(DtlsRecords.MAX_RECORD_BYTES);
        queue.stopWaiting();

        queue.offer(new byte[300], A);
        queue.offer(new byte[40], B);
        assertThat(queue.getReceiveLimit()).isEqualTo(300);
        byte[] buffer = new byte[queue.getReceiveLimit()];
        assertThat(queue.receive(buffer, 0, buffer.length, 1)).isEqualTo(300);
        assertThat(queue.lastSender()).isEqualTo(A);
        // the rest of the 300-byte datagram may still be waiting in the record layer: its buffer must hold it
        assertThat(queue.getReceiveLimit()).isEqualTo(300);
        assertThat(queue.receive(buffer, 0, buffer.length, 1)).isEqualTo(40);
        assertThat(queue.lastSender()).isEqualTo(B);
        assertThat(queue.getReceiveLimit()).isEqualTo(40);
        assertThatThrownBy(() -> queue.receive(buffer, 0, buffer.length, 1)).isInstanceOf(DatagramQueue.Drained.class);

        queue.offer(new byte[500], A);
        assertThat(queue.receive(new byte[100], 0, 100, 1)).as("too long for the buffer: the record layer drops it")
                .isEqualTo(500);
        queue.send(new byte[] {1, 2, 3, 4}, 1, 2);
        assertThat(written).singleElement().isEqualTo(new byte[] {2, 3});
    }

    @Test
    void aHandshakeWaitsForTheNextDatagramAndAFullQueueDropsNewerOnes() throws Exception {
        DatagramQueue queue = new DatagramQueue(datagram -> { });
        byte[] buffer = new byte[DtlsRecords.MAX_RECORD_BYTES];
        assertThat(queue.receive(buffer, 0, buffer.length, 1)).as("nothing came in time").isEqualTo(-1);
        CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
            try {
                return queue.receive(buffer, 0, buffer.length, 10_000);
            } catch (InterruptedIOException e) {
                throw new IllegalStateException(e);
            }
        });
        queue.offer(new byte[77], A);
        assertThat(reader.get(5, TimeUnit.SECONDS)).as("woken by the offer").isEqualTo(77);

        for (int i = 0; i < DatagramQueue.CAPACITY; i++) {
            assertThat(queue.offer(new byte[] {(byte) i}, A)).isTrue();
        }
        assertThat(queue.offer(new byte[1], A)).as("past its capacity").isFalse();
        assertThat(queue.waiting()).isEqualTo(DatagramQueue.CAPACITY);
        queue.stopWaiting();
        for (int i = 0; i < DatagramQueue.CAPACITY; i++) {
            assertThat(queue.poll().bytes()).as("in order").isEqualTo(new byte[] {(byte) i});
        }
        assertThat(queue.poll()).isNull();
        assertThat(queue.waiting()).isZero();
    }
}
