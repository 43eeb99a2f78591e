package io.ckc.client;

import io.netty.channel.EventLoop;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Supplier;

/**
 * Runs a node's actions on its current event loop, in call order, from any thread. Actions wait here
 * and the loop drains them; when the node moves to a socket on another loop ({@link MobileNode#migrate}),
 * the rest of the mailbox is drained there, so an action called during the move cannot overtake one
 * called before it.
 */
final class Mailbox {

    private final ConcurrentLinkedDeque<Runnable> actions = new ConcurrentLinkedDeque<>();
    private final Supplier<EventLoop> loop;

    /** {@code loop} names the node's event loop now; it changes when the node migrates. */
    Mailbox(Supplier<EventLoop> loop) {
        this.loop = loop;
    }

    /** Runs the action at once when on the loop with nothing waiting, else after what waits, on the loop. */
    void run(Runnable action) {
        if (actions.isEmpty() && loop.get().inEventLoop()) {
            action.run();
            return;
        }
        actions.offerLast(action);
        loop.get().execute(this::drain);
    }

    /** Runs the action before everything waiting: the first step on a new loop after a migration. */
    void runNext(Runnable action) {
        actions.offerFirst(action);
    }

    private void drain() {
        Runnable next;
        while (loop.get().inEventLoop() && (next = actions.pollFirst()) != null) {
            next.run();
        }
        if (!actions.isEmpty() && !loop.get().inEventLoop()) {
            loop.get().execute(this::drain); // migrated: continue on the new loop
        }
    }
}
