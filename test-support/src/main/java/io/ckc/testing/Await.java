package io.ckc.testing;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds, for integration tests on real, asynchronous parts. */
public final class Await {

    private Await() {
    }

    /** Waits until {@code condition} holds; fails with {@code what} after {@code seconds}. */
    public static void until(String what, int seconds, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached within " + seconds + " s: " + what);
            }
            Thread.sleep(100);
        }
    }
}
