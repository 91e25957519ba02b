package io.changestream.alerts.destination.limits;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the per-destination circuit breakers.
 *
 * @param failureThreshold consecutive transient failures that open the circuit (default 5)
 * @param openDuration     how long an open circuit refuses deliveries before a trial (default 30 s)
 * @param halfOpenTrials   concurrent trial deliveries while half-open (default 1)
 * @param maxBreakers      destinations tracked; beyond it the least recently created breaker is dropped
 *                         (default 10,000)
 */
public record CircuitBreakerSettings(int failureThreshold, Duration openDuration, int halfOpenTrials,
                                     int maxBreakers) {

    /** The defaults. */
    public static final CircuitBreakerSettings DEFAULTS =
            new CircuitBreakerSettings(5, Duration.ofSeconds(30), 1, 10_000);

    public CircuitBreakerSettings {
        if (failureThreshold < 1) {
            throw new IllegalArgumentException("breaker.failureThreshold must be >= 1, was " + failureThreshold);
        }
        Objects.requireNonNull(openDuration, "breaker.openDuration is required");
        if (openDuration.isNegative() || openDuration.isZero()) {
            throw new IllegalArgumentException("breaker.openDuration must be > 0, was " + openDuration);
        }
        if (halfOpenTrials < 1) {
            throw new IllegalArgumentException("breaker.halfOpenTrials must be >= 1, was " + halfOpenTrials);
        }
        if (maxBreakers < 1) {
            throw new IllegalArgumentException("breaker.maxBreakers must be >= 1, was " + maxBreakers);
        }
    }
}
