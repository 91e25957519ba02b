package io.changestream.alerts.pipeline;

import java.time.Instant;

/**
 * Receives every per-destination outcome the {@link AlertProcessor} decides, for the status endpoint. Called on the
 * runtime's processor threads; implementations are thread-safe and do not block.
 */
public interface DeliveryObserver {

    /** Observes nothing. */
    DeliveryObserver NONE = new DeliveryObserver() {
    };

    /** The destination accepted the event. */
    default void delivered(String subscriptionId, String destinationId) {
    }

    /** An attempt failed and will be retried at about {@code nextAttempt}. */
    default void failed(String subscriptionId, String destinationId, String reason, Instant nextAttempt) {
    }

    /** The event went to the dead-letter topic for this destination; {@code retriesExhausted} says why. */
    default void deadLettered(String subscriptionId, String destinationId, String reason, boolean retriesExhausted) {
    }
}
