package io.changestream.alerts.subscription;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How far the subscription view has applied each partition of the topic and when it was last confirmed complete,
 * shared by the successive {@link SubscriptionReaderLoop}s of one store (a restarted reader resumes where its
 * predecessor stopped). Written by the reader thread; read by writers (waiting for their record), readiness and the
 * processing gate. Thread-safe (the offsets under this object's monitor, the instant volatile).
 */
final class ViewProgress {

    private final Clock clock;
    private final Map<Integer, Long> applied = new HashMap<>();
    private final long createdAtMillis;
    private volatile long freshAtMillis = -1;

    ViewProgress(Clock clock) {
        this.clock = clock;
        this.createdAtMillis = clock.millis();
    }

    /** Reader: every record before {@code position} of the partition is applied. */
    synchronized void appliedUpTo(int partition, long position) {
        applied.put(partition, position - 1);
    }

    /** Reader: wakes writers waiting for their record (call after a batch of {@link #appliedUpTo}). */
    synchronized void publish() {
        notifyAll();
    }

    /** The position to resume a partition from, or -1 to read it from the beginning. */
    synchronized long resumePosition(int partition) {
        Long last = applied.get(partition);
        return last == null ? -1 : last + 1;
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

    /** Waits until the record at this offset has been applied; false on timeout or interrupt. */
    synchronized boolean awaitApplied(int partition, long offset, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (applied.getOrDefault(partition, -1L) < offset) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** For the status line. */
    synchronized Map<Integer, Long> snapshot() {
        return Map.copyOf(applied);
    }
}
