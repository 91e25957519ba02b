package io.changestream.alerts.destination.limits;

import io.changestream.alerts.destination.DeliveryResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The circuit breaker of one destination, driven by an injected {@link Clock}. Transient failures (RETRY outcomes)
 * count; a permanent failure means the endpoint answered, so it counts as alive. Thread-safe (synchronized; calls
 * are short).
 */
public final class CircuitBreaker {

    private final CircuitBreakerSettings settings;
    private final Clock clock;
    private CircuitState state = CircuitState.CLOSED;
    private int consecutiveFailures;
    private int trialsInFlight;
    private Instant openedAt;
    private Instant trialsAdmittedAt;

    public CircuitBreaker(CircuitBreakerSettings settings, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The current state (an OPEN circuit whose time is up reports HALF_OPEN only once a call was admitted). */
    public synchronized CircuitState state() {
        return state;
    }

    /**
     * Whether a delivery may go through now. An OPEN circuit whose open duration has passed moves to HALF_OPEN and
     * admits up to {@code halfOpenTrials} calls. Trials whose outcome was never recorded (the caller died or was
     * interrupted) are given up after another open duration, so a half-open circuit cannot wedge.
     */
    public synchronized boolean tryAcquire() {
        Instant now = clock.instant();
        if (state == CircuitState.OPEN && !now.isBefore(openedAt.plus(settings.openDuration()))) {
            moveTo(CircuitState.HALF_OPEN);
            trialsInFlight = 0;
        }
        switch (state) {
            case CLOSED:
                return true;
            case HALF_OPEN:
                if (trialsInFlight >= settings.halfOpenTrials()
                        && !now.isBefore(trialsAdmittedAt.plus(settings.openDuration()))) {
                    trialsInFlight = 0;
                }
                if (trialsInFlight < settings.halfOpenTrials()) {
                    trialsInFlight++;
                    trialsAdmittedAt = now;
                    return true;
                }
                return false;
            default:
                return false;
        }
    }

    /** How long until an open circuit admits a trial (zero when not open). */
    public synchronized Duration remainingOpen() {
        if (state != CircuitState.OPEN) {
            return Duration.ZERO;
        }
        Duration left = Duration.between(clock.instant(), openedAt.plus(settings.openDuration()));
        return left.isNegative() ? Duration.ZERO : left;
    }

    /** Records the outcome of an admitted delivery. */
    public synchronized void record(DeliveryResult result) {
        if (result.outcome() == DeliveryResult.Kind.RETRY) {
            onFailure();
        } else {
            onSuccess();
        }
    }

    /**
     * Records an admitted delivery that threw instead of returning an outcome: a transient failure (a half-open
     * trial re-opens the circuit rather than leaving it waiting for an outcome that never comes).
     */
    public synchronized void recordThrown(Throwable thrown) {
        onFailure();
    }

    private void onSuccess() {
        consecutiveFailures = 0;
        if (state == CircuitState.HALF_OPEN) {
            moveTo(CircuitState.CLOSED);
        }
    }

    private void onFailure() {
        consecutiveFailures++;
        if (state == CircuitState.HALF_OPEN
                || (state == CircuitState.CLOSED && consecutiveFailures >= settings.failureThreshold())) {
            moveTo(CircuitState.OPEN);
            openedAt = clock.instant();
        }
    }

    private void moveTo(CircuitState next) {
        if (!next.predecessors().contains(state)) {
            throw new IllegalStateException("circuit cannot move from " + state + " to " + next);
        }
        state = next;
    }
}
