package io.changestream.alerts.subscription;

import io.changestream.alerts.metrics.AlertMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate processing consults before it matches an event against the subscription view: while the view is older
 * than {@code subscriptions.maxStaleness} (its reader dead or cut off from the broker), events are not matched blind
 * — deleted subscriptions would keep receiving, new ones would never fire — but wait and are looked at again after
 * {@link #RECHECK} (a pause, not an attempt: nothing is dead-lettered for it). Any thread (the lanes).
 *
 * <p>Meter: {@code changestream_subscriptions_paused_events_total} — times an event was held back. A hold's start
 * (with the view's age and health) and its end are logged once each.
 */
public final class SubscriptionViewGate {

    private static final Logger LOG = LoggerFactory.getLogger(SubscriptionViewGate.class);

    /** How long a held-back event waits before the gate is asked again. */
    public static final Duration RECHECK = Duration.ofSeconds(1);

    private final SubscriptionStore store;
    private final Duration maxStaleness;
    private final Clock clock;
    private final Counter paused;
    /** Whether the last look held events back: a hold's start and end are logged once each. */
    private final AtomicBoolean holding = new AtomicBoolean();

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
            if (holding.compareAndSet(true, false)) {
                LOG.info("subscription view current again ({} ms old): events go on", age.toMillis());
            }
            return Optional.empty();
        }
        paused.increment();
        String reason = "subscription view is " + age.toMillis() + " ms old, more than " + maxStaleness.toMillis()
                + " ms (subscriptions.maxStaleness)";
        if (holding.compareAndSet(false, true)) {
            LOG.warn("holding events back: {}; view {}", reason, store.health());
        }
        return Optional.of(new Hold(clock.instant().plus(RECHECK), reason));
    }

    /** A held-back event: when to look again, and why. */
    public record Hold(Instant until, String reason) {
    }
}
