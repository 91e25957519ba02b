package io.changestream.runtime.internal;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with jitter: {@code min(max, initial * multiplier^(attempt-1)) * (1 ± jitter)}, never above
 * {@code max}. Thread-safe if the random generator is (the runtime gives each lane its own).
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

    /** The delay in milliseconds after failed attempt number {@code attempt} (1-based). */
    public long delayMillis(int attempt, RandomGenerator random) {
        double base = initialMillis * Math.pow(multiplier, Math.max(0, attempt - 1));
        double capped = Math.min(base, maxMillis);
        double spread = jitter == 0 ? 1.0 : 1.0 + jitter * (2 * random.nextDouble() - 1);
        return Math.max(0, Math.min(maxMillis, Math.round(capped * spread)));
    }
}
