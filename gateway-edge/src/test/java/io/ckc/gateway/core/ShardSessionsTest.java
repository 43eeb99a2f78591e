package io.ckc.gateway.core;

import io.ckc.protocol.auth.Grants;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class ShardSessionsTest {

    private final ShardSessions sessions = new ShardSessions();

    private static Session session(UUID node, long epoch) {
        return new Session(node, epoch, Grants.ALL, FakeLink::new, SessionShard.nowMs());
    }

    private List<Session> opened(int count) {
        List<Session> opened = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Session session = session(UUID.randomUUID(), 1);
            sessions.put(session);
            opened.add(session);
        }
        return opened;
    }

    @Test
    void removingSessionsInAnyOrderLeavesTheOthersFoundAndDrawable() {
        List<Session> opened = opened(100);
        Random random = new Random(7);
        List<Session> removed = new ArrayList<>();
        for (int i = 0; i < 70; i++) {
            Session gone = opened.remove(random.nextInt(opened.size()));
            assertThat(sessions.remove(gone)).isTrue();
            removed.add(gone);
            sessions.sample(10, s -> true, random); // draws reorder the array between removals
        }

        assertThat(sessions.size()).isEqualTo(30);
        assertThat(sessions.remove(removed.get(0))).as("removed twice").isFalse();
        assertThat(opened).allSatisfy(s -> assertThat(sessions.get(s.mnId)).isSameAs(s));
        assertThat(sessions.sample(1_000, s -> true, random)).as("all that are left, once each")
                .containsExactlyInAnyOrderElementsOf(opened);
    }

    @Test
    void aNewEpochTakesItsNodesPlaceAndTheOldSessionIsNoLongerRemovable() {
        Session old = opened(5).get(2);
        Session newer = session(old.mnId, 2);
        sessions.put(newer);

        assertThat(sessions.size()).isEqualTo(5);
        assertThat(sessions.get(old.mnId)).isSameAs(newer);
        assertThat(sessions.remove(old)).isFalse();
        assertThat(sessions.sample(10, s -> true, new Random(1))).contains(newer).doesNotContain(old);
    }

    @Test
    void aSampleHasDistinctEligibleSessionsOnly() {
        List<Session> opened = opened(500);
        opened.subList(0, 250).forEach(s -> s.announced = true);

        List<Session> drawn = sessions.sample(100, Session::announced, new Random(3));

        assertThat(drawn).hasSize(100).allSatisfy(s -> assertThat(s.announced).isTrue());
        assertThat(new HashSet<>(drawn)).hasSize(100);
        assertThat(sessions.sample(300, Session::announced, new Random(4))).hasSize(250);
    }
}
