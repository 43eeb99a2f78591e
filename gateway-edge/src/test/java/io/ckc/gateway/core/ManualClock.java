package io.ckc.gateway.core;

import io.github.bucket4j.TimeMeter;

/** A clock for the gateway's token buckets that moves only when a test says so. */
final class ManualClock implements TimeMeter {

    private long nanos;

    void advanceMs(long ms) {
        nanos += ms * 1_000_000;
    }

    @Override
    public long currentTimeNanos() {
        return nanos;
    }

    @Override
    public boolean isWallClockBased() {
        return false;
    }
}
