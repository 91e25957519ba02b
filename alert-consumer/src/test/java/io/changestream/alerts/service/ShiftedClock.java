package io.changestream.alerts.service;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The system clock moved by an offset the test shifts forward: time runs as usual (backoffs, commit intervals,
 * staleness) and a test jumps over a digest's schedule tick or a group's wait without sleeping.
 */
final class ShiftedClock extends Clock {

    private volatile Duration offset;

    /** Starts at {@code start}, running from there. */
    ShiftedClock(Instant start) {
        this.offset = Duration.between(Instant.now(), start);
    }

    /** Jumps forward. */
    void advance(Duration by) {
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
        return Instant.now().plus(offset);
    }
}
