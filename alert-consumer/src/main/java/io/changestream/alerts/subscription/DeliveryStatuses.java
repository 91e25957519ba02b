package io.changestream.alerts.subscription;

import io.changestream.topics.model.EventSubscription;
import java.util.List;

/**
 * Where {@code GET …/{id}/status} reads per-destination delivery status from: the group-wide view built from
 * {@code alert-ledger} and {@code alert-dlq} ({@code io.changestream.alerts.status.DeliveryStatusView}), with the
 * retry path's state on top ({@code io.changestream.alerts.retry.RetryStatuses}). Thread-safe.
 */
public interface DeliveryStatuses {

    /** The status of every destination of a subscription, in its order. */
    List<DestinationStatus> statuses(EventSubscription subscription);

    /** Drops what is known about a subscription (it was deleted). */
    void forget(String subscriptionId);

    /**
     * Called before {@link #statuses}: whether the answer that follows includes everything acknowledged before this
     * call. A view that reads topics catches up first (bounded) and answers false when it could not in time.
     */
    default boolean current() {
        return true;
    }
}
