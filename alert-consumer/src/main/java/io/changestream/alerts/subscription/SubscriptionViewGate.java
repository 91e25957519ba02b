package io.changestream.alerts.subscription;

import io.changestream.alerts.metrics.AlertMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The gate processing consults before it matches an event against the subscription view: while the view is older
 * than {@code subscriptions.maxStaleness} (its reader dead or cut off from the broker), events are not matched blind
 * — deleted subscriptions would keep receiving, new ones would never fire — but wait and are looked at again after
 * {@link #RECHECK} (a pause, not an attempt: nothing is dead-lettered for it). Any thread (the lanes).
 *
 * <p>Meter: {@code changestream_subscriptions_paused_events_total} — times an event was held back.
 */
public final class SubscriptionViewGate {

    /** How long a held-back event waits before the gate is asked again. */
    public static final Duration RECHECK = Duration.ofSeconds(1);

    private final SubscriptionStore store;
    private final Duration maxStaleness;
    private final Clock clock;
    private final Counter paused;

    public SubscriptionViewGate(SubscriptionStore store, Duration maxStaleness, Clock clock, MeterRegistry meters) {
        this.store = Objects.requireNonNull(store, "store");
        this.maxStaleness = Objects.requireNonNull(maxStaleness, "maxStaleness");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.paused = AlertMeter.SUBSCRIPTIONS_PAUSED_EVENTS.counter()
                .register(meters);
    }

    /** Empty when processing may go on; otherwise the instant to look again and why. */
    public Optional<Hold> hold() {
        Duration age = store.viewAge();
        if (age.compareTo(maxStaleness) <= 0) {
            return Optional.empty();
        }
        paused.increment();
        return Optional.of(new Hold(clock.instant().plus(RECHECK), "subscription view is " + age.toMillis()
                + " ms old, more than " + maxStaleness.toMillis() + " ms (subscriptions.maxStaleness)"));
    }

    /** A held-back event: when to look again, and why. */
    public record Hold(Instant until, String reason) {
    }
}
