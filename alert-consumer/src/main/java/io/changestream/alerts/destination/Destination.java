package io.changestream.alerts.destination;

import io.changestream.topics.model.SubscriptionType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Delivers events to one kind of destination. Implementations are thread-safe and called from the runtime's
 * processor threads; {@link #deliver(DeliveryRequest)} blocks for at most the destination's connect + read timeout
 * and never throws for a delivery failure: the outcome is in the result. {@link #deliverAsync} is the non-blocking
 * form the alert processor uses: HTTP destinations answer it from their asynchronous client, the others (SMTP,
 * OpenLineage) run {@link #deliver} on the bounded pool they are given.
 */
public interface Destination extends AutoCloseable {

    /** The destination type this delivers. */
    SubscriptionType type();

    /** Delivers one request. */
    DeliveryResult deliver(DeliveryRequest request);

    /**
     * Delivers one request without blocking the caller; the stage completes (never exceptionally for a delivery
     * failure) with the result, on any thread. Cancelling it cancels the request: an HTTP exchange is aborted, a
     * blocking call is interrupted. The default runs {@link #deliver} on {@code blocking} (which may refuse it with a
     * {@link java.util.concurrent.RejectedExecutionException}, thrown at once) and interrupts it on cancel.
     */
    default CompletionStage<DeliveryResult> deliverAsync(DeliveryRequest request, Executor blocking) {
        return Cancellation.supplyInterruptibly(() -> deliver(request), blocking);
    }

    /**
     * Delivers several requests for the same destination, results in the same order. The default delivers them
     * one by one; batching destinations (OpenLineage) send them together.
     */
    default List<DeliveryResult> deliverAll(List<DeliveryRequest> requests) {
        List<DeliveryResult> results = new ArrayList<>(requests.size());
        for (DeliveryRequest request : requests) {
            results.add(deliver(request));
        }
        return results;
    }

    /** Releases resources; idempotent. */
    @Override
    default void close() {
    }
}
