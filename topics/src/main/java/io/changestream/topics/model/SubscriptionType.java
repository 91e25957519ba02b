package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How a destination delivers (the platform's {@code subscriptionType}, plus OpenLineage). */
public enum SubscriptionType {
    /** A generic HTTP webhook. */
    @JsonProperty("Webhook") WEBHOOK,
    /** Older platforms' name for {@link #WEBHOOK}; kept so their records round-trip. */
    @JsonProperty("Generic") GENERIC,
    /** A Slack incoming webhook. */
    @JsonProperty("Slack") SLACK,
    /** A Microsoft Teams webhook. */
    @JsonProperty("MsTeams") MS_TEAMS,
    /** A Google Chat webhook. */
    @JsonProperty("GChat") G_CHAT,
    /** E-mail. */
    @JsonProperty("Email") EMAIL,
    /** The platform's activity feed. */
    @JsonProperty("ActivityFeed") ACTIVITY_FEED,
    /** Governance workflow trigger. */
    @JsonProperty("GovernanceWorkflowChangeEvent") GOVERNANCE_WORKFLOW_CHANGE_EVENT,
    /** An OpenLineage HTTP endpoint (changestream's addition). */
    @JsonProperty("OpenLineage") OPEN_LINEAGE
}
