package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Whether a matching filter includes or excludes the event. */
public enum Effect {
    /** Deliver events that match. */
    @JsonProperty("include") INCLUDE,
    /** Drop events that match. */
    @JsonProperty("exclude") EXCLUDE
}
