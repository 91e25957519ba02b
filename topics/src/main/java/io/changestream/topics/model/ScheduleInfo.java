package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Schedule of a {@link TriggerType#SCHEDULED} trigger. */
public enum ScheduleInfo {
    /** Once a day. */
    @JsonProperty("Daily") DAILY,
    /** Once a week (the platform's default). */
    @JsonProperty("Weekly") WEEKLY,
    /** Once a month. */
    @JsonProperty("Monthly") MONTHLY,
    /** By {@code cronExpression}. */
    @JsonProperty("Custom") CUSTOM
}
