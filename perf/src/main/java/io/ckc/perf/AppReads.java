package io.ckc.perf;

import io.ckc.protocol.records.AppMessage;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The echo requests on the application's topic ({@code app.echo}), read as any raw consumer reads them:
 * each node's numbers, and those on the topic twice (a node sent one again after a fault, before the
 * application's own dedupe). Thread-safe.
 */
final class AppReads {

    final AtomicLong duplicates = new AtomicLong();
    private final BitSet[] seen;

    AppReads(int nodes) {
        seen = new BitSet[nodes];
        for (int i = 0; i < nodes; i++) {
            seen[i] = new BitSet();
        }
    }

    void read(AppMessage message) {
        EchoPayload payload = EchoPayload.decode(message.payload());
        if (payload.node() < 0 || payload.node() >= seen.length || payload.seq() < 0) {
            return; // not this run's, or a warm-up message
        }
        BitSet node = seen[payload.node()];
        synchronized (node) {
            if (node.get(payload.seq())) {
                duplicates.incrementAndGet();
            }
            node.set(payload.seq());
        }
    }
}
