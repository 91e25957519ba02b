package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** When a subscription fires. */
public enum TriggerType {
    /** On every matching event (the default). */
    @JsonProperty("RealTime") REAL_TIME,
    /** On a schedule (see {@link ScheduleInfo}). */
    @JsonProperty("Scheduled") SCHEDULED
}
