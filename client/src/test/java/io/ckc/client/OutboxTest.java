package io.ckc.client;

import io.ckc.protocol.frame.Body;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The node's outbox on its own, with the clock in the test's hand. */
class OutboxTest {

    private static Body.Outgoing message(String text) {
        return new Body.MnMessage(UUID.nameUUIDFromBytes(text.getBytes()), "echo", null, text.getBytes());
    }

    private static List<String> texts(List<Body.Outgoing> messages) {
        return messages.stream().map(m -> new String(((Body.MnMessage) m).payload())).toList();
    }

    @Test
    void whatAnEndedSessionLeftGoesBeforeWhatWaitedAndTheOrderHolds() {
        Outbox outbox = new Outbox(10, 60_000);
        outbox.offer(message("c"), 0);
        outbox.offer(message("d"), 0);
        outbox.putBack(List.of(message("a"), message("b")), 5);
        assertThat(texts(outbox.takeAll())).containsExactly("a", "b", "c", "d");
        assertThat(outbox.isEmpty()).isTrue();
    }

    @Test
    void aFullOutboxRefusesTheNewMessageAndKeepsTheOthers() {
        Outbox outbox = new Outbox(2, 60_000);
        assertThat(outbox.offer(message("a"), 0)).isTrue();
        assertThat(outbox.offer(message("b"), 0)).isTrue();
        assertThat(outbox.offer(message("c"), 0)).isFalse();
        assertThat(texts(outbox.takeAll())).containsExactly("a", "b");
    }

    @Test
    void aMessageLeavesAtItsTtlAndOneThatCameBackCountsFromThen() {
        Outbox outbox = new Outbox(10, 1_000);
        outbox.offer(message("old"), 0);
        outbox.offer(message("young"), 600);
        outbox.putBack(List.of(message("back")), 900);
        assertThat(outbox.expire(999)).isEmpty();
        assertThat(texts(outbox.expire(1_000))).containsExactly("old");
        assertThat(texts(outbox.expire(1_600))).containsExactly("young");
        assertThat(outbox.size()).isEqualTo(1);
        assertThat(texts(outbox.expire(1_900))).containsExactly("back");
    }
}
