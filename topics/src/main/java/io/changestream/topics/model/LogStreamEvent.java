package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * One Server-Sent Event of the platform's live log stream: the JSON in an unnamed event's {@code data}. The
 * platform's schema ({@code logStreamEvent.json}) forbids additional properties, so absent fields are omitted, never
 * written as null. Build with {@link #logs}, {@link #complete} and {@link #error}.
 *
 * @param eventType {@code logs}, {@code complete} or {@code error}; required
 * @param runId     the run being streamed
 * @param logs      log text (logs events)
 * @param after     the cursor after these logs; the viewer resumes with {@code ?after=}
 * @param replay    true when the logs were replayed from a buffer or the log-chunks topic
 * @param truncated true when part of the requested range no longer exists
 * @param reason    why the stream ended (complete events)
 * @param message   a human-readable message (error events)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record LogStreamEvent(
        @JsonProperty(required = true) EventType eventType,
        String runId,
        String logs,
        String after,
        Boolean replay,
        Boolean truncated,
        EndReason reason,
        String message) {

    /** The kind of stream event. */
    public enum EventType {
        /** A piece of log text. */
        @JsonProperty("logs") LOGS,
        /** The stream ended normally; see {@link EndReason}. */
        @JsonProperty("complete") COMPLETE,
        /** The stream failed; see {@code message}. The server closes after it. */
        @JsonProperty("error") ERROR
    }

    /** Why a stream completed. */
    public enum EndReason {
        /** The run reached a terminal state and its logs were drained. */
        @JsonProperty("runFinished") RUN_FINISHED,
        /** No new logs for maxIdleSeconds. */
        @JsonProperty("idleTimeout") IDLE_TIMEOUT,
        /** The stream was open for maxStreamSeconds. */
        @JsonProperty("maxDuration") MAX_DURATION,
        /** The stream sent maxStreamBytes. */
        @JsonProperty("maxBytes") MAX_BYTES
    }

    public LogStreamEvent {
        Objects.requireNonNull(eventType, "LogStreamEvent.eventType is required");
    }

    /** A {@code logs} event; {@code replay} and {@code truncated} are written only when true. */
    public static LogStreamEvent logs(String runId, String logs, String after, boolean replay, boolean truncated) {
        return new LogStreamEvent(EventType.LOGS, runId, logs, after, replay ? Boolean.TRUE : null,
                truncated ? Boolean.TRUE : null, null, null);
    }

    /** A {@code complete} event ending the stream for {@code reason}. */
    public static LogStreamEvent complete(String runId, String after, EndReason reason) {
        return new LogStreamEvent(EventType.COMPLETE, runId, null, after, null, null,
                Objects.requireNonNull(reason, "reason"), null);
    }

    /** An {@code error} event; the server closes the stream after sending it. */
    public static LogStreamEvent error(String runId, String message) {
        return new LogStreamEvent(EventType.ERROR, runId, null, null, null, null, null,
                Objects.requireNonNull(message, "message"));
    }
}
