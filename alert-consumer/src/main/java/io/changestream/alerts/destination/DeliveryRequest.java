package io.changestream.alerts.destination;

import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.trace.TraceContext;
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
 * @param trace        the W3C trace the event belongs to (from its record's {@code traceparent}); null starts a new one
 */
public record DeliveryRequest(EventSubscription subscription, SubscriptionDestination destination, ChangeEvent event,
                              PipelineRunStatus runStatus, int attempt, TraceContext trace) {

    public DeliveryRequest {
        trace = trace == null ? TraceContext.newTrace() : trace;
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
        return new DeliveryRequest(subscription, destination, event, null, attempt, null);
    }

    /** A run-status delivery. */
    public static DeliveryRequest ofRun(EventSubscription subscription, SubscriptionDestination destination,
                                        PipelineRunStatus runStatus, int attempt) {
        return new DeliveryRequest(subscription, destination, null, runStatus, attempt, null);
    }

    /**
     * The key a receiver deduplicates on, the same on every attempt and every instance:
     * {@code <subscriptionId>:<eventId>}, or {@code <subscriptionId>:<pipelineFqn>/<runId>/<state>/<timestamp>} for a run status.
     */
    public String idempotencyKey() {
        String what = event != null ? event.id() : runStatus.eventId();
        return subscription.id() + ":" + what;
    }

    /** This request under the trace of its event. */
    public DeliveryRequest withTrace(TraceContext trace) {
        return new DeliveryRequest(subscription, destination, event, runStatus, attempt, trace);
    }

    /** The {@code traceparent} of one outbound request: the event's trace, a new span id on every call. */
    public String outboundTraceparent() {
        return trace.child().format();
    }
}
