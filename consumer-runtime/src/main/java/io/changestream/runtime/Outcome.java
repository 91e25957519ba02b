package io.changestream.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * What a {@link Processor} decided about one {@link Event}. Five cases:
 * <ul>
 *   <li>{@link Success}: the event is done;</li>
 *   <li>{@link RetryAfter}: try again after a delay; counts as an attempt, so after
 *       {@link RuntimeConfig#maxAttempts()} attempts the event goes to the {@link FailureHandler};</li>
 *   <li>{@link Fail}: a final failure, straight to the {@link FailureHandler} without retry;</li>
 *   <li>{@link DeferUntil}: not yet, process it again at or after an instant (a debounce window); it is not an
 *       attempt and not a failure;</li>
 *   <li>{@link Await}: not yet, process it again when a signal completes (a resource it waits for has room) or
 *       after a bound at the latest; not an attempt and not a failure either.</li>
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

    /**
     * Process the event again when {@code signal} completes (normally or not), or after {@code atMost} at the latest;
     * not counted as an attempt. For a processor held back by a resource that says when it has room, instead of
     * polling it.
     */
    static Outcome await(CompletionStage<?> signal, Duration atMost, String reason) {
        return new Await(signal, atMost, reason);
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

    /** Wait for {@code signal}, at most {@code atMost}, then process again. */
    record Await(CompletionStage<?> signal, Duration atMost, String reason) implements Outcome {
        public Await {
            Objects.requireNonNull(signal, "signal");
            Objects.requireNonNull(atMost, "atMost");
            Objects.requireNonNull(reason, "reason");
            if (atMost.isNegative()) {
                throw new IllegalArgumentException("await bound must not be negative, was " + atMost);
            }
        }
    }
}
