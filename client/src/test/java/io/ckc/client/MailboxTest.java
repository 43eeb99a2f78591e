package io.ckc.client;

import io.ckc.testing.Await;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class MailboxTest {

    private final EventLoop first = new DefaultEventLoop();
    private final EventLoop second = new DefaultEventLoop();
    private volatile EventLoop current = first;
    private final Mailbox mailbox = new Mailbox(() -> current);
    private final List<String> ran = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        first.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        second.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private Runnable record(String name) {
        return () -> ran.add(name + (first.inEventLoop() ? "@first" : second.inEventLoop() ? "@second" : "@caller"));
    }

    @Test
    void actionsRunOnTheLoopInCallOrderAndThoseLeftWhenTheNodeMovesRunOnTheNewLoop() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        first.execute(() -> {
            try {
                release.await(); // the first loop is busy while the actions come in
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        mailbox.run(record("a"));
        mailbox.run(() -> { // the node migrates: what comes after a and this runs on the second loop
            ran.add("move@first");
            current = second;
            mailbox.runNext(record("attach"));
        });
        mailbox.run(record("b"));
        mailbox.run(record("c"));
        release.countDown();

        Await.until("five actions ran", 10, () -> ran.size() == 5);
        assertThat(ran).containsExactly("a@first", "move@first", "attach@second", "b@second", "c@second");
    }

    @Test
    void anActionCalledOnTheLoopWithNothingWaitingRunsAtOnce() throws Exception {
        first.submit(() -> {
            mailbox.run(record("now"));
            ran.add("after");
        }).sync();

        assertThat(ran).containsExactly("now@first", "after");
    }
}
