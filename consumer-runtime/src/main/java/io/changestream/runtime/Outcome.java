package io.changestream.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What a {@link Processor} decided about one {@link Event}. Four cases:
 * <ul>
 *   <li>{@link Success}: the event is done;</li>
 *   <li>{@link RetryAfter}: try again after a delay; counts as an attempt, so after
 *       {@link RuntimeConfig#maxAttempts()} attempts the event goes to the {@link FailureHandler};</li>
 *   <li>{@link Fail}: a final failure, straight to the {@link FailureHandler} without retry;</li>
 *   <li>{@link DeferUntil}: not yet, process it again at or after an instant (a debounce window); it is not an
 *       attempt and not a failure.</li>
 * </ul>
 * While an event waits (retry or defer), later events with the same key wait behind it.
 */
public sealed interface Outcome {

    /** The event is done. */
    static Outcome success() {
        return Success.INSTANCE;
    }

    /** Try again after {@code delay} (exact: no backoff or jitter is added). */
    static Outcome retryAfter(Duration delay, String reason) {
        return new RetryAfter(delay, reason);
    }

    /** Final failure: no retry. */
    static Outcome fail(String reason) {
        return new Fail(reason);
    }

    /** Process the event again at or after {@code notBefore}; not counted as an attempt. */
    static Outcome deferUntil(Instant notBefore, String reason) {
        return new DeferUntil(notBefore, reason);
    }

    /** The event is done. */
    enum Success implements Outcome {
        INSTANCE
    }

    /** Retry after {@code delay}; {@code reason} is kept for the failure handler if retries run out. */
    record RetryAfter(Duration delay, String reason) implements Outcome {
        public RetryAfter {
            Objects.requireNonNull(delay, "delay");
            Objects.requireNonNull(reason, "reason");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("retry delay must not be negative, was " + delay);
            }
        }
    }

    /** A final failure with its reason. */
    record Fail(String reason) implements Outcome {
        public Fail {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** Wait until {@code notBefore}, then process again. */
    record DeferUntil(Instant notBefore, String reason) implements Outcome {
        public DeferUntil {
            Objects.requireNonNull(notBefore, "notBefore");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
