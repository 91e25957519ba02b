package io.changestream.alerts.destination;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * What a delivery attempt achieved.
 *
 * @param outcome    delivered, retry or permanent
 * @param retryAfter for {@link Kind#RETRY}: the wait the receiver asked for ({@code Retry-After}), or null to
 *                   let the runtime's backoff decide
 * @param reason     why it was not delivered (status code, exception), null when delivered
 * @param throttled  a RETRY that was never sent: held back by the destination's rate limit or a receiver's pause;
 *                   it does not count as an attempt against the subscription's {@code retries}
 * @param unanswered a RETRY whose request may have reached the receiver (written, then no answer: a read timeout,
 *                   the connection lost): the outcome is unknown, so an at-most-once destination is not sent it again
 * @param shed       a throttled RETRY refused because its destination stalled (every slot busy and no answer for
 *                   {@code delivery.stallTimeout}, or a queued request waited past {@code delivery.maxQueueWait}),
 *                   its circuit is open or the blocking pool is full: the pair leaves the
 *                   commit path for the retry path at once (the destination's bulkhead, decision 2101), so it holds
 *                   none of the runtime's slots while its destination is in trouble
 * @param backpressure a throttled RETRY held back by its destination's full queue while that destination answers
 *                   promptly or has not answered yet (decision 2202): the service is behind, the destination is not
 *                   failing, so the wait does not spend the pair's inline budget ({@code retry.inlineBudget})
 * @param room       for backpressure: completes when the destination's queue has room for this request again (the
 *                   request is tried then instead of after {@code retryAfter}), or null when it does not tell
 */
public record DeliveryResult(Kind outcome, Duration retryAfter, String reason, boolean throttled,
                             boolean unanswered, boolean shed, boolean backpressure, CompletionStage<Void> room) {

    /** The three outcomes. */
    public enum Kind {
        /** The receiver accepted it (2xx, SMTP 250, Kafka ack). */
        DELIVERED,
        /** A transient failure (connect error, timeout, 408, 429, 5xx, open circuit): try again later. */
        RETRY,
        /** Retrying cannot help (other 4xx, invalid config, refused address): dead-letter it. */
        PERMANENT
    }

    private static final DeliveryResult DELIVERED = new DeliveryResult(Kind.DELIVERED, null, null);

    /** A result of a request that was sent. */
    public DeliveryResult(Kind outcome, Duration retryAfter, String reason) {
        this(outcome, retryAfter, reason, false, false, false, false, null);
    }

    public DeliveryResult {
        Objects.requireNonNull(outcome, "outcome");
        if (outcome != Kind.DELIVERED) {
            Objects.requireNonNull(reason, "reason");
        }
        if (outcome != Kind.RETRY && retryAfter != null) {
            throw new IllegalArgumentException("retryAfter only applies to RETRY");
        }
        if (throttled && outcome != Kind.RETRY) {
            throw new IllegalArgumentException("only a RETRY can be throttled");
        }
        if (unanswered && (outcome != Kind.RETRY || throttled)) {
            throw new IllegalArgumentException("only a RETRY that was sent can be unanswered");
        }
        if (shed && !throttled) {
            throw new IllegalArgumentException("only a throttled RETRY (never sent) can be shed");
        }
        if (backpressure && (!throttled || shed)) {
            throw new IllegalArgumentException("only a throttled RETRY that is not shed can be backpressure");
        }
        if (room != null && !backpressure) {
            throw new IllegalArgumentException("only backpressure waits for room");
        }
    }

    /** Delivered. */
    public static DeliveryResult delivered() {
        return DELIVERED;
    }

    /** Retry, after the given wait (null: the runtime's backoff). */
    public static DeliveryResult retry(Duration after, String reason) {
        return new DeliveryResult(Kind.RETRY, after, reason);
    }

    /** Not sent: wait for the destination's next slot (rate limit or a receiver's pause); not an attempt. */
    public static DeliveryResult throttled(Duration after, String reason) {
        return new DeliveryResult(Kind.RETRY, Objects.requireNonNull(after, "after"), reason, true, false,
                false, false, null);
    }

    /**
     * Not sent: the destination's queue is full while it answers promptly; tried again inline when {@code room}
     * completes (null: it does not tell), after {@code after} at the latest, without spending the pair's inline
     * budget. Not an attempt.
     */
    public static DeliveryResult backpressure(Duration after, String reason, CompletionStage<Void> room) {
        return new DeliveryResult(Kind.RETRY, Objects.requireNonNull(after, "after"), reason, true, false,
                false, true, room);
    }

    /**
     * Not sent: the destination stalled or its circuit is open; the pair goes to the retry path (after
     * {@code after}, null: its backoff) instead of waiting inline. Not an attempt.
     */
    public static DeliveryResult shed(Duration after, String reason) {
        return new DeliveryResult(Kind.RETRY, after == null ? Duration.ZERO : after, reason, true, false, true,
                false, null);
    }

    /** Retry (the runtime's backoff); the request may have reached the receiver: no answer came. */
    public static DeliveryResult unanswered(String reason) {
        return new DeliveryResult(Kind.RETRY, null, reason, false, true, false, false, null);
    }

    /** Give up: dead-letter it. */
    public static DeliveryResult permanent(String reason) {
        return new DeliveryResult(Kind.PERMANENT, null, reason);
    }

    /** True when delivered. */
    public boolean isDelivered() {
        return outcome == Kind.DELIVERED;
    }

    /**
     * Settled without sending: this destination had nothing to send (a run state outside a lineage destination's
     * {@code statuses}, roles that select no receiver). A {@link Kind#DELIVERED} with a reason (why nothing was
     * sent); {@code /status} counts it as skipped, not delivered.
     */
    public static DeliveryResult skipped(String reason) {
        return new DeliveryResult(Kind.DELIVERED, null, Objects.requireNonNull(reason, "reason"));
    }

    /** True when settled without sending ({@link #skipped}). */
    public boolean isSkipped() {
        return outcome == Kind.DELIVERED && reason != null;
    }
}
