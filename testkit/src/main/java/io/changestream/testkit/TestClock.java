package io.changestream.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A UTC clock a test moves forward by hand, so that it jumps over a delay, a grace period or a schedule tick instead
 * of sleeping. {@link #frozenAt} stands still between {@link #advance} calls (unit tests of time rules);
 * {@link #runningFrom} runs with the system clock from its start (integration tests where backoffs, commit
 * intervals and staleness must still pass). Safe to read from any thread; advanced by the test thread.
 */
public final class TestClock extends Clock {

    private final Instant base;
    private final boolean running;
    private final Instant createdAt;
    private volatile Duration offset = Duration.ZERO;

    private TestClock(Instant base, boolean running) {
        this.base = base;
        this.running = running;
        this.createdAt = Instant.now();
    }

    /** A clock that reads {@code start} until advanced. */
    public static TestClock frozenAt(Instant start) {
        return new TestClock(start, false);
    }

    /** A clock that reads {@code start} now and runs from there at the system clock's pace. */
    public static TestClock runningFrom(Instant start) {
        return new TestClock(start, true);
    }

    /** Jumps forward by {@code by}. */
    public void advance(Duration by) {
        offset = offset.plus(by);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        Instant at = base.plus(offset);
        return running ? at.plus(Duration.between(createdAt, Instant.now())) : at;
    }
}
