package io.changestream.alerts.pipeline;

import io.changestream.alerts.metrics.AlertMeter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code changestream_alert_processing_seconds{event_type}}: how long one event's attempt takes in the alert processor,
 * from the lane's call until every pair of the event finished this attempt (all subscriptions, every destination
 * group), by the platform's event type. The tag is bounded: the platform's closed set of event types
 * ({@code type/changeEventType.json}), {@value #RUN_STATUS} for a pipeline run status and {@value #OTHER} for any
 * other value, so an unknown or hostile {@code eventType} never adds a series. Timers are made up front; any thread.
 */
final class EventTypeTimers {

    /** The platform's event types (its {@code EventType} enum). */
    static final List<String> PLATFORM_EVENT_TYPES = List.of("entityCreated", "entityUpdated", "entityFieldsChanged",
            "entityNoChange", "entitySoftDeleted", "entityDeleted", "entityRestored", "threadCreated", "threadUpdated",
            "postCreated", "postUpdated", "taskResolved", "taskClosed", "logicalTestCaseAdded", "suggestionCreated",
            "suggestionUpdated", "suggestionAccepted", "suggestionRejected", "suggestionDeleted");
    /** The tag of a pipeline run status (a record of {@code pipeline-status}). */
    static final String RUN_STATUS = "pipelineStatus";
    /** The tag of an event type outside the platform's set. */
    static final String OTHER = "other";
    /** Histogram buckets: few and fixed, so 21 event types stay about 300 series (not Micrometer's ~70 each). */
    static final Duration[] BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
        Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
        Duration.ofSeconds(1), Duration.ofMillis(2_500), Duration.ofSeconds(5), Duration.ofSeconds(10),
        Duration.ofSeconds(30), Duration.ofSeconds(60)};

    private final Map<String, Timer> timers = new HashMap<>();
    private final Timer other;

    EventTypeTimers(MeterRegistry meters) {
        for (String type : PLATFORM_EVENT_TYPES) {
            timers.put(type, timer(meters, type));
        }
        timers.put(RUN_STATUS, timer(meters, RUN_STATUS));
        other = timer(meters, OTHER);
        timers.put(OTHER, other);
    }

    private static Timer timer(MeterRegistry meters, String type) {
        return AlertMeter.PROCESSING.timer().tag("event_type", type).serviceLevelObjectives(BUCKETS).register(meters);
    }

    /** The timer of {@code notice}'s event type. */
    Timer of(Notice notice) {
        if (notice.isRunStatus()) {
            return timers.get(RUN_STATUS);
        }
        return timers.getOrDefault(notice.change().eventType(), other);
    }

    /** Records {@code startedNanos} (a {@link System#nanoTime()} reading) until now on {@code notice}'s timer. */
    void record(Notice notice, long startedNanos) {
        of(notice).record(System.nanoTime() - startedNanos, TimeUnit.NANOSECONDS);
    }
}
