package io.changestream.alerts.destination;

import io.changestream.topics.model.SubscriptionType;
import java.util.ArrayList;
import java.util.List;

/**
 * Delivers events to one kind of destination. Implementations are thread-safe and called from the runtime's
 * processor threads; {@link #deliver(DeliveryRequest)} blocks for at most the destination's connect + read timeout
 * and never throws for a delivery failure: the outcome is in the result.
 */
public interface Destination extends AutoCloseable {

    /** The destination type this delivers. */
    SubscriptionType type();

    /** Delivers one request. */
    DeliveryResult deliver(DeliveryRequest request);

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
