package io.changestream.alerts.destination;

import java.time.Duration;
import java.util.Objects;

/**
 * What a delivery attempt achieved.
 *
 * @param outcome    delivered, retry or permanent
 * @param retryAfter for {@link Outcome#RETRY}: the wait the receiver asked for ({@code Retry-After}), or null to
 *                   let the runtime's backoff decide
 * @param reason     why it was not delivered (status code, exception), null when delivered
 */
public record DeliveryResult(Outcome outcome, Duration retryAfter, String reason) {

    /** The three outcomes. */
    public enum Outcome {
        /** The receiver accepted it (2xx, SMTP 250, Kafka ack). */
        DELIVERED,
        /** A transient failure (connect error, timeout, 408, 429, 5xx, open circuit): try again later. */
        RETRY,
        /** Retrying cannot help (other 4xx, invalid config, refused address): dead-letter it. */
        PERMANENT
    }

    private static final DeliveryResult DELIVERED = new DeliveryResult(Outcome.DELIVERED, null, null);

    public DeliveryResult {
        Objects.requireNonNull(outcome, "outcome");
        if (outcome != Outcome.DELIVERED) {
            Objects.requireNonNull(reason, "reason");
        }
        if (outcome != Outcome.RETRY && retryAfter != null) {
            throw new IllegalArgumentException("retryAfter only applies to RETRY");
        }
    }

    /** Delivered. */
    public static DeliveryResult delivered() {
        return DELIVERED;
    }

    /** Retry, after the given wait (null: the runtime's backoff). */
    public static DeliveryResult retry(Duration after, String reason) {
        return new DeliveryResult(Outcome.RETRY, after, reason);
    }

    /** Give up: dead-letter it. */
    public static DeliveryResult permanent(String reason) {
        return new DeliveryResult(Outcome.PERMANENT, null, reason);
    }

    /** True when delivered. */
    public boolean isDelivered() {
        return outcome == Outcome.DELIVERED;
    }
}
