package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Kind of alert of an {@link EventSubscription}, serialized as the platform's strings. */
public enum AlertType {
    /** Change notifications (the default). */
    @JsonProperty("Notification") NOTIFICATION,
    /** Data-quality and pipeline observability alerts. */
    @JsonProperty("Observability") OBSERVABILITY,
    /** The platform's own activity feed. */
    @JsonProperty("ActivityFeed") ACTIVITY_FEED,
    /** Feeds governance workflows. */
    @JsonProperty("GovernanceWorkflowChangeEvent") GOVERNANCE_WORKFLOW_CHANGE_EVENT,
    /** Custom alert type. */
    @JsonProperty("Custom") CUSTOM
}
