package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * The value on the compacted topic {@code pipeline-status} (key = {@link TopicKeys#pipelineRun(String, String)}):
 * the latest known state of one ingestion pipeline run.
 *
 * @param pipelineFqn fully qualified name of the ingestion pipeline; required
 * @param runId       the run id; required
 * @param state       the run state; required
 * @param startDate   run start, epoch milliseconds
 * @param endDate     run end, epoch milliseconds (terminal states)
 * @param timestamp   when this status was recorded, epoch milliseconds; required
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record PipelineRunStatus(
        @JsonProperty(required = true) String pipelineFqn,
        @JsonProperty(required = true) String runId,
        @JsonProperty(required = true) PipelineState state,
        Long startDate,
        Long endDate,
        @JsonProperty(required = true) long timestamp) {

    public PipelineRunStatus {
        Objects.requireNonNull(pipelineFqn, "PipelineRunStatus.pipelineFqn is required");
        Objects.requireNonNull(runId, "PipelineRunStatus.runId is required");
        Objects.requireNonNull(state, "PipelineRunStatus.state is required");
    }

    /** The Kafka key of this record. */
    public String key() {
        return TopicKeys.pipelineRun(pipelineFqn, runId);
    }

    /**
     * The identity of this status update, what ledgers, dead letters and idempotency keys use:
     * {@code <pipelineFqn>/<runId>/<state>/<timestamp>}. The timestamp is the status row's own, so two updates of a
     * run in the same state (a run that reports {@code running} twice) are two events, while a repeat of one row
     * (the connector re-reading it after a crash) keeps its id.
     */
    public String eventId() {
        return key() + "/" + state.name().toLowerCase(java.util.Locale.ROOT) + "/" + timestamp;
    }
}
