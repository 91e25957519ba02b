package io.changestream.alerts.destination;

import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.SubscriptionDestination;
import java.util.Objects;

/**
 * One delivery: an event (a {@link ChangeEvent}, or a {@link PipelineRunStatus} for OpenLineage) of one subscription
 * to one of its destinations.
 *
 * @param subscription the subscription; required
 * @param destination  the destination of the subscription to deliver to; required
 * @param event        the change event, or null for a run-status delivery
 * @param runStatus    the pipeline run status, or null for a change-event delivery
 * @param attempt      1 for the first attempt
 */
public record DeliveryRequest(EventSubscription subscription, SubscriptionDestination destination, ChangeEvent event,
                              PipelineRunStatus runStatus, int attempt) {

    public DeliveryRequest {
        Objects.requireNonNull(subscription, "subscription");
        Objects.requireNonNull(destination, "destination");
        if ((event == null) == (runStatus == null)) {
            throw new IllegalArgumentException("exactly one of event and runStatus must be set");
        }
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
        }
    }

    /** A change-event delivery. */
    public static DeliveryRequest of(EventSubscription subscription, SubscriptionDestination destination,
                                     ChangeEvent event, int attempt) {
        return new DeliveryRequest(subscription, destination, event, null, attempt);
    }

    /** A run-status delivery. */
    public static DeliveryRequest ofRun(EventSubscription subscription, SubscriptionDestination destination,
                                        PipelineRunStatus runStatus, int attempt) {
        return new DeliveryRequest(subscription, destination, null, runStatus, attempt);
    }

    /**
     * The key a receiver deduplicates on, the same on every attempt and every instance:
     * {@code <subscriptionId>:<eventId>}, or {@code <subscriptionId>:<pipelineFqn>/<runId>/<state>/<timestamp>} for a run status.
     */
    public String idempotencyKey() {
        String what = event != null ? event.id() : runStatus.eventId();
        return subscription.id() + ":" + what;
    }
}
