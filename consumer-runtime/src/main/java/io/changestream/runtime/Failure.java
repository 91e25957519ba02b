package io.changestream.runtime;

import java.util.Objects;

/**
 * Why an event finally failed.
 *
 * @param kind     which rule ended it
 * @param reason   a human-readable reason (the processor's, or the exception's message)
 * @param cause    the exception thrown by the processor, or null
 * @param attempts how many attempts were made
 */
public record Failure(Kind kind, String reason, Throwable cause, int attempts) {

    public Failure {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(reason, "reason");
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, was " + attempts);
        }
    }

    /** Which rule ended the event; also the {@code kind} tag of the final-failure meter. */
    public enum Kind {
        /** The processor returned {@link Outcome#fail}. */
        FAILED,
        /** The processor threw an exception that is not retriable. */
        NOT_RETRIABLE,
        /** {@link RuntimeConfig#maxAttempts()} attempts were retried or thrown retriably. */
        RETRIES_EXHAUSTED,
        /** An attempt ran past {@link RuntimeConfig#processingTimeout()}; timeouts are not retried. */
        TIMED_OUT,
        /**
         * The record could not be deserialized: the event carries its coordinates, headers and timestamp, with a
         * null key and value; the cause is Kafka's {@code RecordDeserializationException} (which holds the bytes).
         */
        NOT_DESERIALIZABLE
    }
}
