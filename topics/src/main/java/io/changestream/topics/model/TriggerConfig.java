package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * When a subscription fires (the platform's {@code trigger}). An absent {@code triggerType} means
 * {@link TriggerType#REAL_TIME}; a scheduled trigger without {@code scheduleInfo} is {@link ScheduleInfo#WEEKLY}.
 *
 * @param triggerType    real time or scheduled
 * @param scheduleInfo   the schedule (scheduled triggers only)
 * @param cronExpression the cron expression ({@link ScheduleInfo#CUSTOM} only)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record TriggerConfig(TriggerType triggerType, ScheduleInfo scheduleInfo, String cronExpression) {

    /** The default: fire on every matching event. */
    public static final TriggerConfig REAL_TIME = new TriggerConfig(TriggerType.REAL_TIME, null, null);

    public TriggerConfig {
        if (triggerType == null) {
            triggerType = TriggerType.REAL_TIME;
        }
        if (triggerType == TriggerType.SCHEDULED && scheduleInfo == null) {
            scheduleInfo = ScheduleInfo.WEEKLY;
        }
    }
}
