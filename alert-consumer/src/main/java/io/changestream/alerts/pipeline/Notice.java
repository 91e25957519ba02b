package io.changestream.alerts.pipeline;

import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.serde.Json;
import io.changestream.topics.trace.TraceContext;

/**
 * What one source record asks to be told: a change event, or a pipeline run status. Immutable.
 *
 * @param eventId the id the ledger, the DLQ and the Idempotency-Key use: the change event's id, or
 *                {@link PipelineRunStatus#eventId()} ({@code <pipelineFqn>/<runId>/<state>/<timestamp>}) for a run status
 * @param change  the change event, or null
 * @param run     the run status, or null
 */
record Notice(String eventId, ChangeEvent change, PipelineRunStatus run) {

    static Notice of(ChangeEvent change) {
        return new Notice(change.id(), change, null);
    }

    static Notice of(PipelineRunStatus run) {
        return new Notice(run.eventId(), null, run);
    }

    boolean isRunStatus() {
        return run != null;
    }

    DeliveryRequest request(EventSubscription subscription, SubscriptionDestination destination, int attempt,
                            TraceContext trace) {
        return new DeliveryRequest(subscription, destination, change, run, attempt, trace);
    }

    /**
     * The change event a {@code FailedEvent} carries: the event itself, or for a run status an event describing it
     * (entityType {@code ingestionPipeline}, eventType {@code pipelineStatus}, the status as its entity).
     */
    ChangeEvent asChangeEvent() {
        if (change != null) {
            return change;
        }
        return new ChangeEvent(eventId, "pipelineStatus", "ingestionPipeline", run.pipelineFqn(), null,
                run.pipelineFqn(), null, null, null, null, run.timestamp(), null, Json.mapper().valueToTree(run),
                null);
    }
}
