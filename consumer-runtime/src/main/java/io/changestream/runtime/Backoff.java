package io.changestream.runtime;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with jitter: {@code min(max, initial * multiplier^(attempt-1)) * (1 ± jitter)}, never above
 * {@code max}. The runtime's retries use it with jitter; the services' own waits (a retry path, a reader restart, a
 * window rebuild) use {@link #doubling} without. Thread-safe if the random generator is (the runtime gives each lane
 * its own).
 */
public final class Backoff {

    private final long initialMillis;
    private final long maxMillis;
    private final double multiplier;
    private final double jitter;

    public Backoff(Duration initial, Duration max, double multiplier, double jitter) {
        this.initialMillis = initial.toMillis();
        this.maxMillis = max.toMillis();
        this.multiplier = multiplier;
        this.jitter = jitter;
    }

    /** Doubling from {@code initial}, capped at {@code max}, without jitter. */
    public static Backoff doubling(Duration initial, Duration max) {
        return new Backoff(initial, max, 2.0, 0.0);
    }

    /** The wait after failed attempt number {@code attempt} (1-based; 0 or less waits {@code initial}), no jitter. */
    public Duration after(int attempt) {
        return Duration.ofMillis(Math.round(capped(attempt)));
    }

    /** The delay in milliseconds after failed attempt number {@code attempt} (1-based). */
    public long delayMillis(int attempt, RandomGenerator random) {
        double capped = capped(attempt);
        double spread = jitter == 0 ? 1.0 : 1.0 + jitter * (2 * random.nextDouble() - 1);
        return Math.max(0, Math.min(maxMillis, Math.round(capped * spread)));
    }

    /**
     * The delay in milliseconds after failed attempt number {@code attempt} (1-based), shortened by a random part of up
     * to {@code jitter} of it ({@code random} in [0, 1)): never above the capped wait, so a cap stays a cap — the
     * cdc-connector's restarts, where instances must not retry in step but never wait longer than configured.
     */
    public long shortenedMillis(int attempt, double random) {
        double capped = capped(attempt);
        return Math.max(0, Math.round(capped - capped * jitter * random));
    }

    /** {@code min(max, initial * multiplier^(attempt-1))} in milliseconds, before jitter. */
    private double capped(int attempt) {
        return Math.min(initialMillis * Math.pow(multiplier, Math.max(0, attempt - 1)), maxMillis);
    }
}
