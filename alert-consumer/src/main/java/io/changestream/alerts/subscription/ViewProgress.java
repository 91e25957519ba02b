package io.changestream.alerts.subscription;

import java.time.Clock;
import java.time.Duration;

/**
 * When the subscription view was last confirmed complete, kept by the store across its reader's restarts (how far
 * it applied each partition is the reader's: {@code ViewReader#awaitApplied}). Written by the reader thread; read by
 * readiness and the processing gate. Thread-safe (the instant volatile).
 */
final class ViewProgress {

    private final Clock clock;
    private final long createdAtMillis;
    private volatile long freshAtMillis = -1;

    ViewProgress(Clock clock) {
        this.clock = clock;
        this.createdAtMillis = clock.millis();
    }

    /** Reader: the view held everything the topic held, now. */
    void markFresh() {
        freshAtMillis = clock.millis();
    }

    /** Whether the view was ever complete. */
    boolean everFresh() {
        return freshAtMillis >= 0;
    }

    /** Time since the view was last confirmed complete (since creation while it never was). */
    Duration age() {
        long since = freshAtMillis >= 0 ? freshAtMillis : createdAtMillis;
        return Duration.ofMillis(Math.max(0, clock.millis() - since));
    }
}
