package io.changestream.logs.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker moved by hand. */
final class FakeClock implements Ticker {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long nanos() {
        return nanos.get();
    }

    void advanceSeconds(long seconds) {
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
    }
}
