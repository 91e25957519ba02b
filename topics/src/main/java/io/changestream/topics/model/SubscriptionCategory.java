package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Who a destination delivers to (the platform's {@code subscriptionCategory}). */
public enum SubscriptionCategory {
    /** Named users. */
    @JsonProperty("Users") USERS,
    /** Named teams. */
    @JsonProperty("Teams") TEAMS,
    /** All admins. */
    @JsonProperty("Admins") ADMINS,
    /** Task assignees. */
    @JsonProperty("Assignees") ASSIGNEES,
    /** Owners of the entity. */
    @JsonProperty("Owners") OWNERS,
    /** Users mentioned in a conversation. */
    @JsonProperty("Mentions") MENTIONS,
    /** Followers of the entity. */
    @JsonProperty("Followers") FOLLOWERS,
    /**
     * changestream's extension (issue 28): the owners of the assets downstream of a failed pipeline run (its
     * impact); a destination of this category takes run statuses, not change events.
     */
    @JsonProperty("DownstreamOwners") DOWNSTREAM_OWNERS,
    /** An external endpoint given in {@code config}. */
    @JsonProperty("External") EXTERNAL
}
