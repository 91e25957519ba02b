package io.changestream.alerts.pipeline;

import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.Redaction;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * Where {@link AlertProcessor} hands a (event, subscription, destination group) off when it must wait longer than
 * the inline budget, or when its destination is suspended (decision 1120): the pair leaves the commit path, the
 * source offset is marked done, and the retry path delivers it later, in order per destination. Implemented by
 * {@code io.changestream.alerts.retry.RetryPath}; {@link #NONE} keeps every retry inline. Thread-safe.
 */
public interface LongRetries {

    /** The ledger status of a pair whose remaining destination groups were handed to the retry path. */
    String HANDED_OFF = "RETRYING";

    /** No retry path: every retry stays in the runtime's delay queue, a 410 is a permanent failure. */
    LongRetries NONE = new LongRetries() {
        @Override
        public Optional<String> parkReason(DeliveryRequest request) {
            return Optional.empty();
        }

        @Override
        public boolean exists() {
            return false;
        }

        @Override
        public CompletableFuture<Boolean> handOff(Handoff handoff) {
            return CompletableFuture.completedFuture(false);
        }
    };

    /**
     * Checked before a destination is called: why the pair must be parked instead of sent (the destination is
     * suspended, or pairs this instance handed off for it are not delivered yet, so a send now could overtake them),
     * or empty to send it.
     */
    Optional<String> parkReason(DeliveryRequest request);

    /**
     * Longest a pair waits on the commit path from its first failure ({@code retry.inlineBudget}); past it the
     * delivery decision parks the pair (decision 2102).
     */
    default Duration inlineBudget() {
        return Duration.ofDays(36_500);
    }

    /** Whether there is a retry path to park pairs on (false: every retry stays inline). */
    default boolean exists() {
        return true;
    }

    /**
     * Hands a pair's destination group to the retry path without blocking: completes true once it is durable, false
     * when it cannot take it (larger than the retry record bound) and the pair stays inline, or exceptionally with a
     * {@link io.changestream.runtime.RetryLaterException} when the hand-off was not acked (the event is retried).
     */
    CompletableFuture<Boolean> handOff(Handoff handoff);

    /**
     * One pair's destination group leaving the commit path.
     *
     * @param request       the delivery as it would have been sent (subscription, destination, event, trace)
     * @param source        the source record's partition
     * @param sourceOffset  the source record's offset
     * @param sourceValue   the source record's value (the event JSON), as read
     * @param sourceKey     the source record's key (the entity; the retry path keeps its order), or null
     * @param eventId       the event id (ledger, DLQ, Idempotency-Key)
     * @param groupKey      the destination group's key within the subscription
     * @param attempts      attempts made so far (they count against the subscription's {@code retries})
     * @param firstFailedAt epoch ms of the first failure, 0 when it never failed (parked before a send)
     * @param delay         how long the receiver or the backoff asks to wait from now
     * @param reason        why it leaves (the last failure, or why it is parked)
     * @param suspend       true when the result suspends the destination (410)
     */
    record Handoff(DeliveryRequest request, TopicPartition source, long sourceOffset, String sourceValue,
                   String sourceKey,
                   String eventId, String groupKey, int attempts, long firstFailedAt, Duration delay, String reason,
                   boolean suspend) {
        public Handoff {
            Objects.requireNonNull(request, "request");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(sourceValue, "sourceValue");
            Objects.requireNonNull(delay, "delay");
            reason = Redaction.reason(Objects.requireNonNull(reason, "reason")); // it reaches alert-retry and logs
        }
    }
}
