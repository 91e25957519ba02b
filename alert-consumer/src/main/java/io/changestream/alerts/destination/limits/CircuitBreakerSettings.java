package io.changestream.alerts.destination.limits;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the per-destination circuit breakers.
 *
 * @param failureThreshold {@link #FAILURE_THRESHOLD} (transient failures)
 * @param openDuration     {@link #OPEN_DURATION}, then a trial
 * @param halfOpenTrials   concurrent trial deliveries while half-open (default 1)
 * @param maxBreakers      destinations tracked; beyond it the least recently created breaker is dropped
 *                         (default 10,000)
 */
public record CircuitBreakerSettings(int failureThreshold, Duration openDuration, int halfOpenTrials,
                                     int maxBreakers) {

    public static final Setting<Integer> FAILURE_THRESHOLD = Setting.integer(
            "destinations.breaker.failureThreshold").defaultsTo(5).atLeast(1)
            .doc("consecutive failures that open a circuit");
    public static final Setting<Duration> OPEN_DURATION = Setting.duration("destinations.breaker.openDuration")
            .defaultsTo(Duration.ofSeconds(30)).positive().doc("how long an open circuit refuses");
    /** The breakers' settings. */
    public static final List<Setting<?>> SETTINGS = List.of(FAILURE_THRESHOLD, OPEN_DURATION);

    /** The defaults. */
    public static final CircuitBreakerSettings DEFAULTS = new CircuitBreakerSettings(FAILURE_THRESHOLD.defaultOrFail(),
            OPEN_DURATION.defaultOrFail(), 1, 10_000);

    public CircuitBreakerSettings {
        FAILURE_THRESHOLD.check(failureThreshold);
        OPEN_DURATION.check(openDuration);
        if (halfOpenTrials < 1) {
            throw new IllegalArgumentException("breaker.halfOpenTrials must be >= 1, was " + halfOpenTrials);
        }
        if (maxBreakers < 1) {
            throw new IllegalArgumentException("breaker.maxBreakers must be >= 1, was " + maxBreakers);
        }
    }

    /** The breakers' settings {@code settings} give. */
    public static CircuitBreakerSettings from(SettingsReader settings) {
        return new CircuitBreakerSettings(settings.get(FAILURE_THRESHOLD), settings.get(OPEN_DURATION),
                DEFAULTS.halfOpenTrials(), DEFAULTS.maxBreakers());
    }
}
